import { describe, expect, it } from 'vitest'
import { startSmtpSink } from '../../harness/smtp-sink'
import { startTestServer } from '../../harness/test-server'

/**
 * The start-up line naming the relay: its scheme, host and port, the user masked and never the
 * password. A user that is itself an address (Mailgun's postmaster@…, Postmark and SES style tokens
 * beside it) once made the log's e-mail mask swallow the host: `smtp:<email:1e30c06d1c>:41733`.
 */
describe('Mail goes through …', () => {
  it.each([
    ['an address as the user, its @ as typed', 'postmaster@mg.example.org', 'po***'],
    ['an address, percent-encoded as the docs write it', 'postmaster%40mg.example.org', 'po***'],
    ['a token as the user (SES, Postmark)', 'AKIAIOSFODNN7EXAMPLE', 'AK***'],
  ])('%s', async (_label, user, shown) => {
    const pass = 'pa55-Secret'
    const sink = await startSmtpSink({ auth: { user: decodeURIComponent(user), pass } })
    const server = await startTestServer({
      env: {
        SMTP_URL: `smtp://${user}:${pass}@127.0.0.1:${sink.port}`,
        MAIL_FROM: 'Tessel Labs <beta@tessel-labs.example>',
        LOG_LEVEL: 'info',
      },
    })
    try {
      const line =
        server
          .output()
          .split('\n')
          .find((text) => text.startsWith('Mail goes through')) ?? ''
      expect(line).toMatch(
        new RegExp(
          `^Mail goes through smtp://127\\.0\\.0\\.1:${sink.port} as ${shown.replace(/\*/g, '\\*')} from an address at tessel-labs\\.example, `,
        ),
      )
      expect(server.output()).not.toContain(pass)
      expect(line).not.toContain('<email:')
      expect(line).not.toContain('example.org')
    } finally {
      await server.cleanup()
      await sink.close()
    }
  })
})
