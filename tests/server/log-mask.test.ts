import { createHash, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { emailMask, emailMaskKey, keyEmailMask, maskEmails } from '../../server/boot/log'

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
