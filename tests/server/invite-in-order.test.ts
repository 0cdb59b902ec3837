import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stopBackends } from '../../harness/backends'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { cliOf } from '../../harness/waitlist-cli'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { addCohort, queuedInvitations } from '../support/studio-cohort'

/**
 * Issue 64, "the next N as shown": `list --sort`, `invite --next N --sort` and the studio's "Invite
 * the next N" take the first N in the order the table shows, and say which order. COHORT's
 * organisations, A to Z as the table sorts them (byte order, any letter case): fay's "100% sure",
 * cy's "ACME labs", bo's "Acme Robotics", ada's "Example University"; di and ed have none, and come
 * last both ways. ed unsubscribed, so nothing invites him.
 */
let mail: MailTestServer
let studio: StudioProcess

beforeAll(async () => {
  mail = await startMailTestServer({ MAIL_PER_MINUTE: '0' })
  await addCohort(mail.server.env, mail.database.db)
  studio = await startStudioProcess(mail.server.env)
})

afterAll(async () => {
  await studio?.stop()
  await mail?.close()
  await stopBackends()
})

const cli = cliOf(() => mail.server)
const names = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('  ')[1]?.split('@')[0])

/** The studio's API as its page calls it. */
const api = (path: string, json?: unknown) =>
  fetch(`${studio.origin}${path}`, {
    ...(json === undefined ? {} : { method: 'POST', body: JSON.stringify(json) }),
    headers: {
      'Sec-Fetch-Site': 'same-origin',
      Authorization: `Bearer ${studio.token}`,
      ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
  })

describe('the order the table shows, from the CLI', () => {
  it('list --sort COLUMN[:desc] lists in the studio table’s order; a column it has not is refused', async () => {
    const ascending = await cli('list', '--sort', 'organisation')
    expect(ascending).toMatchObject({ code: 0, stderr: '' })
    expect(names(ascending.stdout)).toEqual(['fay', 'cy', 'bo', 'ada', 'di', 'ed'])
    // The other way round, ties (no organisation) by id the other way too, as the table pages them.
    expect(names((await cli('list', '--sort', 'organisation:desc')).stdout)).toEqual([
      'ada',
      'bo',
      'cy',
      'fay',
      'ed',
      'di',
    ])
    expect(names((await cli('list', '--sort', 'created_at:desc', '--status', 'waiting')).stdout)).toEqual([
      'fay',
      'di',
      'cy',
      'bo',
      'ada',
    ])
    const json = await cli('list', '--sort', 'organisation', '--json', '--answer', 'role=Research')
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).email),
    ).toEqual(['cy@example.com', 'ada@example.com', 'ed@example.com'])
    for (const flags of [
      ['list', '--sort', 'colour'],
      ['list', '--sort', 'organisation:up'],
    ]) {
      const refused = await cli(...flags)
      expect(refused, flags.join(' ')).toMatchObject({ code: 2, stdout: '' })
      expect(refused.stderr).toMatch(
        /^--sort needs one of created_at, email, .*organisation.*, with :desc for/,
      )
    }
    expect(await cli('count', '--sort', 'email')).toMatchObject({
      code: 2,
      stderr: '--sort goes with list and invite --next, not count\n',
    })
    expect((await cli('invite', 'ada@example.com', '--sort', 'email')).stderr).toContain(
      '--sort orders the entries --next N takes',
    )
  })

  it('invite --next 2 --sort organisation invites the first two by organisation, and the dry run says so', async () => {
    const dry = await cli('invite', '--next', '2', '--sort', 'organisation', '--dry-run')
    expect(dry).toMatchObject({ code: 0 })
    expect(dry.stdout.split('\n').slice(0, 4)).toEqual([
      'Dry run: 2 invitations would be queued. Nothing was written.',
      expect.stringMatching(/^ {2}\S+Z {2}fay@example\.com {2}\(waiting\)$/),
      expect.stringMatching(/^ {2}\S+Z {2}cy@example\.com {2}\(waiting\)$/),
      '5 entries may be invited; --next 2 takes the first by --sort organisation.',
    ])
    const queued = await cli('invite', '--next', '2', '--sort', 'organisation')
    expect(queued).toMatchObject({ code: 0 })
    expect(queued.stdout).toContain('Queued 2 invitations.')
    expect(await queuedInvitations(mail.database.db)).toEqual([
      { email: 'fay@example.com', by: 'cli', chosenBy: '--next 2 --sort organisation', size: 2 },
      { email: 'cy@example.com', by: 'cli', chosenBy: '--next 2 --sort organisation', size: 2 },
    ])
  })
})

describe('"Invite the next N" in the studio, in the table’s order', () => {
  it('previews and queues the first rows of the order asked; newest first, the table’s own, without one', async () => {
    const preview = async (query: string) => {
      const answer = await api(`/api/invite/preview?count=1&${query}`)
      expect(answer.status, query).toBe(200)
      return ((await answer.json()) as { recipients: { email: string }[] }).recipients.map(
        (each) => each.email,
      )
    }
    // fay and cy are invited: the first waiting by organisation is bo, by address ada, newest di.
    expect(await preview('sort=answer_organisation&order=asc')).toEqual(['bo@example.com'])
    expect(await preview('sort=email&order=asc')).toEqual(['ada@example.com'])
    expect(await preview('')).toEqual(['di@example.com'])
    expect((await api('/api/invite/preview?count=1&sort=colour')).status).toBe(400)
    const queued = await api('/api/invite?sort=answer_organisation&order=desc', { count: 1 })
    expect(await queued.json()).toMatchObject({ queued: 1 })
    expect((await queuedInvitations(mail.database.db)).at(-1)).toEqual({
      email: 'ada@example.com',
      by: 'studio',
      chosenBy: 'next 1 --sort organisation:desc',
      size: 1,
    })
  })
})
