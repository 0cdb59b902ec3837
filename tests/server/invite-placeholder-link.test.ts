import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { emptyDatabaseOn, stopBackends } from '../../harness/backends'
import { startStudioProcess } from '../../harness/studio-process'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { shippedExamplesLine } from '../../server/boot/shipped-examples'
import { isReservedName } from '../../server/mail/messages/reserved-names'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'

/**
 * Issue 41: a lab that set the site up from the guides but never set BETA_URL invited its first
 * batch with the site config's placeholder link (beta.tessel-labs.example). While the beta link is a
 * reserved example name, nothing is invited: the CLI and the studio refuse in one line, the dry run
 * and a test send say so, and the server says it once at start.
 */
const PLACEHOLDER = mailWords.betaUrl
const REFUSAL =
  `Nothing queued: the beta link ${PLACEHOLDER} is a placeholder (a reserved example name). ` +
  "Set BETA_URL to the beta's real address where the server runs, and restart it.\n"
const NOTE = `The beta link ${PLACEHOLDER} is a placeholder (a reserved example name)`
const REAL = 'https://beta.real-lab.org/'
const ada = 'ada.first@example.com'
const bob = 'bob.second@example.com'

let mail: MailTestServer

beforeAll(async () => {
  // BETA_URL empty is unset: the site config's default link, as a server set up without it has.
  mail = await startMailTestServer({ BETA_URL: '', MAIL_PER_MINUTE: '0' })
  for (const email of [ada, bob]) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
})

afterAll(async () => {
  await mail?.close()
  await stopBackends()
})

const invitationsQueued = async () =>
  (
    await mail.database.db.query<{ n: number }>(
      `select count(*)::int as n from private.mail_outbox where kind = 'invitation'`,
    )
  )[0]?.n

describe('while the beta link is the placeholder', () => {
  it('the server names it at start in one line with the other shipped examples, and warns of a MAIL_FROM at a reserved domain', () => {
    const output = mail.server.output()
    const line =
      'Still the shipped examples in contract/site-config.ts, to change before launch: ' +
      'hiringEmail (the careers address, at tessel-labs.example), ' +
      "publisherId (the lab's domain, tessel-labs.example), " +
      `mailWords.betaUrl (the beta link, ${PLACEHOLDER}; or set BETA_URL); ` +
      'invite refuses to queue while the beta link is one.'
    expect(output.split(line)).toHaveLength(2)
    expect(output.split('shipped examples')).toHaveLength(2)
    expect(output).toContain('MAIL_FROM is at tessel-labs.example, a reserved example domain')
  })

  it('names only what is still an example: a real BETA_URL leaves the beta link out', () => {
    expect(shippedExamplesLine(REAL)).toBe(
      'Still the shipped examples in contract/site-config.ts, to change before launch: ' +
        "hiringEmail (the careers address, at tessel-labs.example), publisherId (the lab's domain, tessel-labs.example).",
    )
    expect(shippedExamplesLine('https://beta.lab.example/')).toContain(
      'BETA_URL (the beta link, https://beta.lab.example/)',
    )
  })

  it('invite --next and invite EMAIL queue nothing, in one line, exit 2 (configuration), whatever the CLI’s own BETA_URL', async () => {
    // The link judged is the one the running server recorded, which is the one it would send.
    const env = { ...mail.server.env, BETA_URL: REAL }
    for (const args of [['--next', '2'], [ada], [bob, '--wait']]) {
      const refused = await runCli(env, 'invite', ...args)
      expect(refused, args.join(' ')).toMatchObject({ code: 2, stdout: '', stderr: REFUSAL })
    }
    expect(await invitationsQueued()).toBe(0)
    expect(await entryStatus(mail.database.db, ada)).toBe('waiting')
  })

  it('the dry run shows who and the message, and says invite will refuse', async () => {
    const dryRun = await runCli(mail.server.env, 'invite', '--next', '2', '--dry-run')
    expect(dryRun).toMatchObject({ code: 0, stderr: '' })
    expect(dryRun.stdout).toContain('Dry run: 2 invitations would be queued. Nothing was written.')
    expect(dryRun.stdout).toContain(`${NOTE}: invite refuses to queue until BETA_URL is set`)
    expect(dryRun.stdout).toContain(`${PLACEHOLDER}?invite=`)
  })

  it('a test send goes, and says the link is a placeholder', async () => {
    const sent = await runCli(mail.server.env, 'invite', '--test', 'owner@lab.example', '--wait')
    expect(sent).toMatchObject({ code: 0, stderr: '' })
    expect(sent.stdout).toContain(NOTE)
    expect(sent.stdout).toContain('Sent 1 of 1')
  })

  it('the studio previews with the note, refuses to queue with the same line, and its test send says so', async () => {
    const studio = await startStudioProcess(mail.server.env)
    const api = (path: string, body?: unknown) =>
      fetch(`${studio.origin}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          'Sec-Fetch-Site': 'same-origin',
          Authorization: `Bearer ${studio.token}`,
          'Content-Type': 'application/json',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    try {
      const preview = (await (await api('/api/invite/preview?count=2')).json()) as { placeholder: string }
      expect(preview.placeholder).toContain(`${NOTE}: invite refuses to queue`)
      const queued = await api('/api/invite', { count: 2 })
      expect(queued.status).toBe(409)
      expect(await queued.json()).toEqual({ error: REFUSAL.trim() })
      expect(await invitationsQueued()).toBe(0)
      const test = await api('/api/invite/test', { email: 'owner@lab.example' })
      expect(test.status).toBe(202)
      expect(((await test.json()) as { placeholder: string }).placeholder).toContain(NOTE)
    } finally {
      await studio.stop()
    }
  })
})

describe('where no server has started yet', () => {
  it('the CLI judges the BETA_URL of its own environment', async () => {
    const database = await emptyDatabaseOn('postgres')
    const refused = await runCli({ ...database.env, BETA_URL: '' }, 'invite', '--next', '1')
    expect(refused).toMatchObject({ code: 2, stderr: REFUSAL })
    const real = await runCli({ ...database.env, BETA_URL: REAL }, 'invite', '--next', '1')
    // A real link, but nobody on the list: nothing asked was done.
    expect(real).toMatchObject({ code: 1, stdout: expect.stringContaining('Queued 0 invitations.') })
  })
})

describe('reserved names (RFC 2606, RFC 6761)', () => {
  it('are example, example.com/.net/.org, localhost, and any name under .example, .test, .invalid, .localhost', () => {
    for (const name of [
      'example',
      'EXAMPLE.com',
      'example.net.',
      'example.org',
      'localhost',
      'beta.tessel-labs.example',
      'lab.test',
      'x.invalid',
      'app.localhost',
    ])
      expect(isReservedName(name), name).toBe(true)
    for (const name of ['lab.com', 'example.co', 'beta.example-lab.org', 'testing.dev', 'localhost.lab.org'])
      expect(isReservedName(name), name).toBe(false)
  })
})
