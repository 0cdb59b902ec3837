import { createHash, randomBytes } from 'node:crypto'
import { describe, expect, it, vi } from 'vitest'
import {
  createLogger,
  emailMask,
  emailMaskKey,
  keyEmailMask,
  maskEmails,
  oneLine,
} from '../../server/boot/log'

const ADDRESS = 'known.person@example.com'
const bareHash = (email: string) => createHash('sha256').update(email).digest('hex').slice(0, 10)

describe('the log mask for e-mail addresses', () => {
  it('is keyed per installation: not a bare hash, different with another secret, stable with one', () => {
    const one = emailMaskKey(randomBytes(48))
    const other = emailMaskKey(randomBytes(48))
    expect(emailMask(ADDRESS, one)).toMatch(/^[0-9a-f]{10}$/)
    expect(emailMask(ADDRESS, one)).not.toBe(bareHash(ADDRESS))
    expect(emailMask(ADDRESS, one)).not.toBe(emailMask(ADDRESS, other))
    expect(emailMask(ADDRESS, one)).toBe(emailMask('Known.Person@Example.COM', one))
  })

  it('gives the same mask to every process holding the same JWT secret (the server and the CLI)', () => {
    const secret = new TextEncoder().encode('a JWT secret shared by the server and the CLI, 40+')
    keyEmailMask(secret)
    const line = maskEmails(`refused ${ADDRESS} twice: ${ADDRESS}`)
    const mask = emailMask(
      ADDRESS,
      emailMaskKey(new TextEncoder().encode('a JWT secret shared by the server and the CLI, 40+')),
    )
    expect(line).toBe(`refused <email:${mask}> twice: <email:${mask}>`)
    expect(line).not.toContain(bareHash(ADDRESS))
  })
})

describe('log lines', () => {
  it('are one per event: CR, LF, ESC and the other control characters are written as escapes', () => {
    const lines: string[] = []
    const info = vi.spyOn(console, 'log').mockImplementation((line: string) => lines.push(line))
    const error = vi.spyOn(console, 'error').mockImplementation((line: string) => lines.push(line))
    try {
      const log = createLogger('info')
      log.info('GET /a\n2026-01-01 INFO forged\r\u001b[2J\u0085\u2028 tab\there')
      log.error('failed:', new Error('boom\nsecond line'))
    } finally {
      info.mockRestore()
      error.mockRestore()
    }
    expect(lines[0]).toBe('GET /a\\n2026-01-01 INFO forged\\r\\x1b[2J\\x85\\u2028 tab\\there')
    // A stack trace is one line too, its frames after escaped line breaks.
    expect(lines[1]).toMatch(/^failed: Error: boom\\nsecond line\\n {4}at /)
    for (const line of lines) expect(oneLine(line)).toBe(line)
  })
})
