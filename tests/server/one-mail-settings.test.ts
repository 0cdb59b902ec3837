import { describe, expect } from 'vitest'
import { freshDataDir } from '../../harness/data-dir'
import type { SmtpSink } from '../../harness/smtp-sink'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { mailTest } from '../support/fixtures'

/**
 * One set of mail settings: the server's. The owner's CLI, from a shell with only DATA_DIR, queues
 * what the server sends, and its dry run shows the message the server would send: its SITE_URL,
 * MAIL_FROM and BETA_URL, as the server recorded them at start.
 */
const FROM = 'Tessel Labs <beta@tessel-labs.example>'
const SITE_URL = 'https://lab-from-server.example.com'
const BETA_URL = 'https://beta-from-server.example.com/start'
// A shell with none of the mail settings (empty is unset, as for every variable).
const NO_MAIL = { SMTP_URL: '', MAIL_FROM: '', SITE_URL: '', BETA_URL: '' }

const it = mailTest({ MAIL_FROM: FROM, SITE_URL, BETA_URL, MAIL_PER_MINUTE: '0' })

it.beforeAll(async ({ mail }) => {
  for (const email of ['first@example.com', 'second@example.com'])
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
})

async function mailTo(sink: SmtpSink, email: string) {
  const deadline = Date.now() + 30_000
  for (;;) {
    const found = sink.received.find((received) => received.to.includes(email))
    if (found) return sink.parse(found)
    if (Date.now() > deadline) throw new Error(`no message to ${email}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('the CLI with only DATA_DIR, beside a server that sends', () => {
  it("previews with the server's SITE_URL, BETA_URL and MAIL_FROM, not its own", async ({ mail }) => {
    // The shell's own SITE_URL decides nothing: the server's links are what goes out.
    const dryRun = await runCli(
      { ...NO_MAIL, DATA_DIR: mail.server.dataDir, SITE_URL: 'https://cli-only.example.com' },
      'invite',
      'first@example.com',
      '--dry-run',
    )
    expect(dryRun).toMatchObject({ code: 0, stderr: '' })
    expect(dryRun.stdout).toContain('From: "Tessel Labs" <beta@tessel-labs.example>')
    expect(dryRun.stdout).toContain(`${SITE_URL}/unsubscribe?t=`)
    expect(dryRun.stdout).toContain(`${BETA_URL}?invite=`)
    expect(dryRun.stdout).not.toContain('cli-only.example.com')
    expect(dryRun.stdout).not.toContain('SMTP_URL')
    expect(dryRun.stdout).not.toContain('No server has started')
  })

  it('queues, and the server sends the message the preview showed', async ({ mail }) => {
    const queued = await runCli({ ...NO_MAIL, DATA_DIR: mail.server.dataDir }, 'invite', 'second@example.com')
    expect(queued).toMatchObject({ code: 0, stderr: '' })
    expect(queued.stdout).toBe('Queued 1 invitation.\n')
    const sent = await mailTo(mail.sink, 'second@example.com')
    expect(sent.from?.text).toBe('"Tessel Labs" <beta@tessel-labs.example>')
    expect(sent.text).toContain(`${SITE_URL}/unsubscribe?t=`)
    expect(sent.text).toContain(`${BETA_URL}?invite=`)
    expect(sent.messageId).toMatch(/@tessel-labs\.example>$/)
  })
})

describe('the CLI where no server has started yet', () => {
  it('says it cannot know the server’s settings, and shows what it can', async () => {
    const fresh = await freshDataDir()
    try {
      const dryRun = await runCli(
        { ...NO_MAIL, DATA_DIR: fresh.dir, PORT: '3000' },
        'invite',
        '--next',
        '1',
        '--dry-run',
      )
      expect(dryRun).toMatchObject({ code: 1 })
      expect(dryRun.stdout).toContain('Dry run: 0 invitations would be queued. Nothing was written.')
      expect(dryRun.stdout).toContain(
        'No server has started on this database yet, so its SITE_URL, BETA_URL and MAIL_FROM are not known',
      )
      expect(dryRun.stdout).toContain('http://127.0.0.1:3000/unsubscribe?t=')
      expect(dryRun.stdout).toContain('From: (none yet')
    } finally {
      await fresh.cleanup()
    }
  })
})
