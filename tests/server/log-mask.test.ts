import { createHash, randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import {
  createLogger,
  emailMask,
  emailMaskKey,
  keyEmailMask,
  maskEmails,
  oneLine,
} from '../../server/base/log'
import { ACCEPTED_EMAILS, REFUSED_EMAILS } from '../support/email-corpus'

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

/** What a reader learns of `email` from `line`: any piece of its local part, or the address whole. */
function leaked(line: string, email: string): string[] {
  const local = email.slice(0, email.lastIndexOf('@'))
  // The local part's runs between the characters the old pattern stopped at (' / = ? &).
  // (Pieces shorter than 3 characters are found in any line, so they are left out.)
  const pieces = [local, ...local.split(/['/=?&]/)].filter((piece) => piece.length >= 3)
  return [email, ...pieces].filter((piece) => line.includes(piece))
}

describe('the log mask covers the whole address grammar', () => {
  const key = emailMaskKey(randomBytes(48))
  const mask = (email: string) => `<email:${emailMask(email, key)}>`

  it("masks the SMTP answer the review stored: ' / = ? & in the local part leave nothing in clear", () => {
    keyEmailMask(randomBytes(48))
    const email = "jane.doe'o/x=y?z&w@example.com"
    const line = maskEmails(`550 no such user ${email}`)
    expect(line).toBe(`550 no such user <email:${emailMask(email)}>`)
    expect(leaked(line, email)).toEqual([])
  })

  it('masks every address of the grammar corpus, in every way a log line quotes one', () => {
    keyEmailMask(randomBytes(48))
    const quotings = [
      (e: string) => [`to ${e} failed`, `to ${mask(e)} failed`],
      (e: string) => [`<${e}>`, `<${mask(e)}>`],
      (e: string) => [`{"email":"${e}"}`, `{"email":"${mask(e)}"}`],
      (e: string) => [`RCPT TO:<${e}>, 550`, `RCPT TO:<${mask(e)}>, 550`],
      (e: string) => [`(${e}); next`, `(${mask(e)}); next`],
      (e: string) => [`bounced for ${e}.`, `bounced for ${mask(e)}.`],
    ]
    for (const email of ACCEPTED_EMAILS) {
      for (const quoting of quotings) {
        const [line = '', expected] = quoting(email)
        const masked = maskEmails(line)
        // Keyed with this test's key to compare: the mask stands exactly where the address stood.
        expect(masked.replace(/<email:[0-9a-f]{10}>/, mask(email)), line).toBe(expected)
        expect(leaked(masked, email), line).toEqual([])
      }
      // In single quotes the quote is taken into the mask: the address is still hidden whole.
      expect(leaked(maskEmails(`'${email}'`), email)).toEqual([])
    }
  })

  it('gives an address the same mask wherever it is quoted, so lines still correlate', () => {
    keyEmailMask(randomBytes(48))
    const email = "o'brien+list@example.com"
    const masks = [`to ${email} failed`, `<${email}>`, `"${email}"`, `${email}.`].map(
      (line) => maskEmails(line).match(/<email:[0-9a-f]{10}>/)?.[0],
    )
    expect(new Set(masks)).toEqual(new Set([`<email:${emailMask(email)}>`]))
  })

  it('masks addresses the database refused, a quoted local part and one percent-encoded in a URL', () => {
    const addressLike = REFUSED_EMAILS.map((email) => email.trim()).filter((email) =>
      /^[^\s"<>@]+@[^\s@]+$/.test(email),
    )
    expect(addressLike.length).toBeGreaterThanOrEqual(8)
    for (const email of addressLike) expect(leaked(maskEmails(`for ${email} `), email), email).toEqual([])
    expect(maskEmails('RCPT "john doe"@example.com refused')).toMatch(/^RCPT <email:[0-9a-f]{10}> refused$/)
    const line = maskEmails('GET /confirm?email=jane.doe%40example.com&x=1 404')
    expect(line).not.toContain('jane.doe')
    expect(line).not.toContain('example.com')
    // A %40 inside a local part (fast-check found it) is part of the address, not an address of its own.
    expect(maskEmails('to a%40a.a@a.aa and a%40b@c%40d.ee. and a%40a.&a.a@a.aa')).toMatch(
      /^to <email:[0-9a-f]{10}> and <email:[0-9a-f]{10}>\. and <email:[0-9a-f]{10}>$/,
    )
  })

  it('hides any address the grammar allows (1,000 generated), between words and in angle brackets', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        const line = maskEmails(`to ${email} and <${email}>, done`)
        expect(line).toMatch(/^to <email:[0-9a-f]{10}> and <<email:[0-9a-f]{10}>>, done$/)
      }),
      { numRuns: 1000 },
    )
  })

  it('stays linear on long text with no address in it (a 15 KB header, 10,000 %40s)', () => {
    const text = `${'x'.repeat(15_000)}${'%40/'.repeat(10_000)}${'a'.repeat(15_000)}@`
    // Counted, not timed: each character is looked at a bounded number of times.
    const calls = { n: 0 }
    const test = RegExp.prototype.test
    const spy = vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, input: string) {
      calls.n++
      return test.call(this, input)
    })
    try {
      maskEmails(text)
    } finally {
      spy.mockRestore()
    }
    expect(calls.n).toBeLessThan(4 * text.length)
  })
})

describe('log lines', () => {
  it('are one per event: CR, LF, ESC and the other control characters are written as escapes', () => {
    const lines: string[] = []
    const info = vi.spyOn(console, 'log').mockImplementation((line: string) => lines.push(line))
    const error = vi.spyOn(console, 'error').mockImplementation((line: string) => lines.push(line))
    try {
      const log = createLogger('info')
      log.info('GET /a\n2024-01-01 INFO forged\r\u001b[2J\u0085\u2028 tab\there')
      log.error('failed:', new Error('boom\nsecond line'))
    } finally {
      info.mockRestore()
      error.mockRestore()
    }
    expect(lines[0]).toBe('GET /a\\n2024-01-01 INFO forged\\r\\x1b[2J\\x85\\u2028 tab\\there')
    // A stack trace is one line too, its frames after escaped line breaks.
    expect(lines[1]).toMatch(/^failed: Error: boom\\nsecond line\\n {4}at /)
    for (const line of lines) expect(oneLine(line)).toBe(line)
  })
})
