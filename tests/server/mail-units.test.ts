import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { loadServerEnv } from '../../server/boot/env'
import {
  checkInviteCode,
  linkKeys,
  makeInviteCode,
  openAddress,
  sealAddress,
} from '../../server/mail/messages/link-seals'
import { classifySmtpError } from '../../server/mail/smtp-transport'
import {
  parseMailFrom,
  parseSmtpUrl,
  SmtpUrlError,
  withoutPassword,
} from '../../server/mail/transport-config'

describe('SMTP_URL', () => {
  it('requires TLS to any host that is not loopback: smtps, or STARTTLS with requireTLS', () => {
    expect(parseSmtpUrl('smtps://u:p@smtp.example.com')).toMatchObject({
      secure: true,
      port: 465,
      requireTLS: false,
    })
    expect(parseSmtpUrl('smtp://u:p@smtp.example.com')).toMatchObject({
      secure: false,
      port: 587,
      requireTLS: true,
    })
    expect(parseSmtpUrl('smtp://u:p@10.0.0.5:2525')).toMatchObject({ requireTLS: true, ignoreTLS: false })
    for (const host of ['127.0.0.1:2525', 'localhost:25', '[::1]:25'])
      expect(parseSmtpUrl(`smtp://${host}`), host).toMatchObject({
        requireTLS: false,
        ignoreTLS: true,
        auth: undefined,
      })
  })

  it('reads percent-encoded credentials and never shows the password', () => {
    const config = parseSmtpUrl('smtps://resend:re_p%40ss%2Fw0rd@smtp.resend.com')
    expect(config.auth).toEqual({ user: 'resend', pass: 're_p@ss/w0rd' })
    expect(config.description).toBe('smtps://smtp.resend.com:465 as re***')
    expect(withoutPassword('535 re_p@ss/w0rd refused (re_p%40ss%2Fw0rd)', config)).toBe(
      '535 *** refused (***)',
    )
  })

  it('refuses other schemes, paths and queries in words that do not quote the URL', () => {
    for (const bad of [
      'http://u:secret@x.example',
      'smtp://u:secret@x.example/path',
      'smtp://u:secret@x.example?tls=no',
    ]) {
      expect(() => parseSmtpUrl(bad)).toThrow(SmtpUrlError)
      expect(() => parseSmtpUrl(bad)).not.toThrow(/secret/)
    }
    const error = (() => {
      try {
        loadServerEnv({ SMTP_URL: 'ftp://user:hunter22@mail.example.com', MAIL_FROM: 'not an address' })
      } catch (thrown) {
        return String(thrown)
      }
    })()
    expect(error).toContain('SMTP_URL: must start with smtp:// or smtps://')
    expect(error).toContain('MAIL_FROM: must be an address')
    expect(error).not.toContain('hunter22')
  })

  it('reads MAIL_FROM as a name and an address, or an address', () => {
    expect(parseMailFrom('Tessel Labs <beta@tessel-labs.example>')).toEqual({
      header: '"Tessel Labs" <beta@tessel-labs.example>',
      address: 'beta@tessel-labs.example',
      domain: 'tessel-labs.example',
      bounceAddress: 'beta@tessel-labs.example',
      bounceDomain: 'tessel-labs.example',
    })
    expect(parseMailFrom('beta@Example.COM')?.domain).toBe('example.com')
    for (const bad of ['', 'beta', 'Tessel <beta>', 'a"b <x@y.example>', 'x@localhost'])
      expect(parseMailFrom(bad), bad).toBeUndefined()
  })
})

describe('SMTP outcomes', () => {
  const config = parseSmtpUrl('smtp://user:s3cret@smtp.example.com')
  const smtp = (responseCode: number, command: string, message = 'refused') =>
    Object.assign(new Error(message), { code: 'EENVELOPE', responseCode, command })

  it('a 5xx to RCPT TO or DATA is permanent (a bounce); a 4xx, a lost connection or a time-out is not', () => {
    expect(classifySmtpError(smtp(550, 'RCPT TO'), config).status).toBe('permanent')
    expect(classifySmtpError(smtp(554, 'DATA'), config).status).toBe('permanent')
    expect(classifySmtpError(smtp(451, 'RCPT TO'), config).status).toBe('transient')
    expect(
      classifySmtpError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' })).status,
    ).toBe('transient')
    expect(
      classifySmtpError(Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT' })).status,
    ).toBe('transient')
  })

  it('a 5xx to AUTH or MAIL FROM is the configuration, not the address: retried, and the password masked', () => {
    const auth = classifySmtpError(smtp(535, 'AUTH PLAIN', 'Invalid login for s3cret'), config)
    expect(auth.status).toBe('transient')
    expect(JSON.stringify(auth)).not.toContain('s3cret')
    expect(classifySmtpError(smtp(550, 'MAIL FROM'), config).status).toBe('transient')
  })
})

describe('link tokens and invite codes', () => {
  const keys = linkKeys(randomBytes(48))
  const other = linkKeys(randomBytes(48))

  it('seal the address: read back with the purpose key, refused with any other or when changed', () => {
    const token = sealAddress(keys.unsubscribe, 'Ada@Example.com')
    expect(token).not.toMatch(/ada|example/i)
    expect(openAddress(keys.unsubscribe, token)).toBe('ada@example.com')
    expect(openAddress(keys.confirm, token), 'a token for another purpose').toBeUndefined()
    expect(openAddress(other.unsubscribe, token), 'another installation').toBeUndefined()
    for (let i = 0; i < token.length; i += 7) {
      const changed = `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`
      expect(openAddress(keys.unsubscribe, changed), `byte ${i}`).toBeUndefined()
    }
    for (const junk of ['', 'x', '../etc', 'a'.repeat(5000), `${token}=`])
      expect(openAddress(keys.unsubscribe, junk)).toBeUndefined()
  })

  it('an invite code names its invitation, is the same on every retry, and fails when forged or altered', () => {
    const id = randomUUID()
    const at = new Date('2024-11-26T10:00:00Z')
    const code = makeInviteCode(keys.inviteCode, id, at)
    expect(code).toHaveLength(50)
    expect(makeInviteCode(keys.inviteCode, id, at)).toBe(code)
    expect(checkInviteCode(keys.inviteCode, code)).toEqual({ invitationId: id, issuedAt: at })
    expect(checkInviteCode(other.inviteCode, code)).toBeUndefined()
    expect(checkInviteCode(keys.inviteCode, makeInviteCode(other.inviteCode, id, at))).toBeUndefined()
    for (let i = 0; i < code.length; i++) {
      const altered = `${code.slice(0, i)}${code[i] === 'A' ? 'B' : 'A'}${code.slice(i + 1)}`
      expect(checkInviteCode(keys.inviteCode, altered), `character ${i}`).toBeUndefined()
    }
  })
})
