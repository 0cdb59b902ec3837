import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStudioProcess } from '../../harness/studio-process'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { entryStatus } from '../support/entry-status'
import { type LocalDns, startLocalDns } from '../support/local-dns'
import { unalignedSender } from '../support/mail-dns'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'

/**
 * A failing preflight holds a batch (issue 66): a server that does not sign, whose bounces go to
 * another organization's domain (MAIL_RETURN_PATH), so From aligns with neither DKIM nor SPF.
 * `invite` then queues nothing and sends nothing; `--skip-preflight` sends, and the record keeps
 * who skipped which check. Through the running server, the test's DNS and a real SMTP server.
 */
const FROM_DOMAIN = 'tessel-labs.org'
const BOUNCE_DOMAIN = 'tessel-mail.net'
const ada = 'ada.held@example.com'

let dns: LocalDns
let mail: MailTestServer

beforeAll(async () => {
  dns = await startLocalDns(unalignedSender(FROM_DOMAIN, BOUNCE_DOMAIN))
  mail = await startMailTestServer({
    MAIL_FROM: `Tessel Labs <beta@${FROM_DOMAIN}>`,
    MAIL_RETURN_PATH: `bounces@${BOUNCE_DOMAIN}`,
    MAIL_PER_MINUTE: '0',
    DNS_SERVERS: dns.server,
  })
})

afterAll(async () => {
  await mail?.close()
  await dns?.close()
})

const cli = (...args: string[]) => runCli(mail.server.env, ...args)

const queuedMail = async () =>
  (await mail.database.db.query<{ n: number }>('select count(*)::int as n from private.mail_outbox'))[0]?.n

describe('a batch waits for a passing preflight', () => {
  it('fails the preflight on a From aligned with neither DKIM nor SPF, naming the check', async () => {
    const result = await cli('preflight')
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^FAIL +DMARC alignment: From tessel-labs.org aligns with neither DKIM \(no selector in use known\) nor SPF tessel-mail.net \(relaxed\)/m,
    )
    expect(result.stdout).toMatch(/^pass +SPF: one record/m)
    expect(result.stdout).toMatch(/^warn +DKIM: no selector named/m)
  })

  it('takes no arguments: a usage error exits 2', async () => {
    const wrong = await cli('preflight', 'tessel-labs.org')
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('preflight takes no arguments')
  })

  it('holds invite: nothing queued, no mail, the failing line said', async () => {
    expect((await postWaitlist(mail.server, { email: ada })).status).toBe(201)
    const held = await cli('invite', '--next', '1')
    expect(held.code).toBe(1)
    expect(held.stderr).toContain('Nothing queued: the deliverability preflight does not pass')
    expect(held.stderr).toMatch(/FAIL +DMARC alignment/)
    expect(held.stderr).toContain('--skip-preflight')
    expect(await queuedMail()).toBe(0)
    expect(await entryStatus(mail.database.db, ada)).toBe('waiting')
    expect(mail.sink.countFor(ada)).toBe(0)
  })

  it('holds the studio’s invite button too, with the failing lines (409), and queues nothing', async () => {
    const studio = await startStudioProcess(mail.server.env)
    try {
      const answer = await fetch(`${studio.origin}/api/invite`, {
        method: 'POST',
        headers: {
          'Sec-Fetch-Site': 'same-origin',
          Authorization: `Bearer ${studio.token}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ count: 1 }),
      })
      expect(answer.status).toBe(409)
      const body = (await answer.json()) as { error: string; preflight: { check: string; status: string }[] }
      expect(body.error).toContain('Nothing queued: the deliverability preflight does not pass')
      expect(body.preflight).toContainEqual(
        expect.objectContaining({ check: 'DMARC alignment', status: 'fail' }),
      )
    } finally {
      await studio.stop()
    }
    expect(await queuedMail()).toBe(0)
  })

  it('sends with --skip-preflight, and the record keeps who skipped which check', async () => {
    const sent = await cli('invite', '--next', '1', '--skip-preflight')
    expect(sent.code).toBe(0)
    expect(sent.stdout).toContain('The preflight fails (DMARC alignment); sent anyway (--skip-preflight)')
    await mail.sink.waitFor(() => mail.sink.countFor(ada) >= 1, `the invitation to ${ada}`)
    expect(await entryStatus(mail.database.db, ada)).toBe('invited')
    const audit = await cli('audit', '--json')
    const invite = audit.stdout
      .split('\n')
      .filter(Boolean)
      .map((row) => JSON.parse(row) as { action: string; detail?: string; actor: string })
      .find((row) => row.action === 'invite')
    expect(invite?.detail).toContain('--next 1 --skip-preflight (failing: DMARC alignment)')
    expect(invite?.actor).toMatch(/^cli:/)
  })
})
