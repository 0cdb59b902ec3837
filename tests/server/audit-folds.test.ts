import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../harness/postgres-cluster'
import { storedPasskey } from '../../harness/team-session'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { auditRecord, cliOf } from '../../harness/waitlist-cli'
import type { AuditEntry } from '../../server/audit/audit-report'
import type { Database } from '../../server/db/database'
import { openPostgres } from '../../server/db/postgres-driver'
import { startSession } from '../../server/team/team-sessions'

/**
 * Issue 61, items 3, 4 and 9, on a real server over HTTP, read back with the real CLI: what a
 * stranger can repeat at will (a failed sign-in with a passkey the team does not know, a refused
 * request) is one line per network an hour with how many times; a known member's failed sign-ins
 * stay one line each; a viewer's refusals are recorded; and the record refuses TRUNCATE on the
 * database's own connection (`waitlist url`).
 */

let server: TestServer
let site: string
let base: string
let db: Database
let viewer: string

const cli = cliOf(() => server)

const record = () => auditRecord(server.env)

const lineCount = async () =>
  (await db.query<{ n: number }>('select count(*)::int as n from private.audit_log'))[0]?.n ?? 0

/** The studio's page would send these: its own Origin, the session's cookie (plain HTTP: no `__Host-`). */
const studio = (path: string, init: { cookie?: string; json?: unknown; method?: string } = {}) =>
  fetch(`${base}/studio${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: {
      Origin: site,
      ...(init.cookie ? { Cookie: `studio-session=${init.cookie}` } : {}),
      ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  })

/** A sign-in's answer in the shape a browser sends, for a credential `id`, signed by nobody. */
const assertion = (id: string) => ({
  id,
  rawId: id,
  type: 'public-key',
  clientExtensionResults: {},
  response: {
    clientDataJSON: Buffer.from('{"type":"webauthn.get"}').toString('base64url'),
    authenticatorData: Buffer.alloc(37).toString('base64url'),
    signature: Buffer.alloc(64).toString('base64url'),
  },
})

beforeAll(async () => {
  const port = await freePort()
  site = `http://localhost:${port}`
  base = `http://127.0.0.1:${port}`
  server = await startTestServer({ env: { PORT: String(port), SITE_URL: site } })
  const added = await cli('team', 'add', 'viewer@lab.example', '--role', 'viewer')
  expect(added.code, added.stderr).toBe(0)
  const url = await cli('url')
  expect(url.code, url.stderr).toBe(0)
  db = await openPostgres(url.stdout.trim(), 1)
  const [member] = await db.query<{ id: string }>(
    `select id::text as id from private.team_members where email = 'viewer@lab.example'`,
  )
  const viewerMember = { memberId: member?.id ?? '', email: 'viewer@lab.example' }
  const passkeyId = await storedPasskey(db, viewerMember, "the viewer's laptop")
  viewer = await db.transaction((tx) =>
    startSession(tx, viewerMember.memberId, { passkeyId, device: 'Chrome on Linux', network: undefined }),
  )
}, 60_000)

afterAll(async () => {
  await db?.close()
  await server?.cleanup()
})

describe('the record takes only what it should', () => {
  it('folds 60 sign-ins with a passkey the team does not know into one line, ×60', async () => {
    const before = await lineCount()
    // At once, as a flood arrives: two servers' worth of racing requests still add one line.
    const answers = await Promise.all([
      ...Array.from({ length: 59 }, () => studio('/auth/sign-in/verify', { json: { response: {} } })),
      studio('/auth/sign-in/verify', { json: { response: assertion('bm90LWEtdGVhbS1wYXNza2V5') } }),
    ])
    expect(answers.map((answer) => answer.status)).toEqual(Array(60).fill(401))
    expect((await lineCount()) - before).toBe(1)
    const failed = (await record()).filter((line) => line.action === 'sign-in failed')
    expect(failed).toEqual([
      {
        at: expect.any(String),
        actor: '(unknown passkey)',
        action: 'sign-in failed',
        detail: 'no passkey of the team',
        count: 0,
        from: '127.0.0.0/24',
        times: 60,
      },
    ])
    const text = await cli('audit')
    expect(text.stdout).toMatch(
      /^\S+ {2}\(unknown passkey\) {2}sign-in failed {2}no passkey of the team {2}×60 {2}from 127\.0\.0\.0\/24$/m,
    )
  })

  it('starts a new line for the same thing an hour after its line', async () => {
    // The database's owner can step around the triggers (as the docs say); here only to age the line.
    await db.exec(`begin;
      alter table private.audit_log disable trigger audit_log_append_only;
      update private.audit_log set at = at - interval '61 minutes' where actor = '(unknown passkey)';
      alter table private.audit_log enable trigger audit_log_append_only;
      commit;`)
    expect((await studio('/auth/sign-in/verify', { json: { response: {} } })).status).toBe(401)
    const failed = (await record()).filter((line) => line.actor === '(unknown passkey)')
    expect(failed.map((line) => line.times)).toEqual([60, 1])
  })

  it("keeps a known member's failed sign-ins one line each", async () => {
    await db.query(
      `insert into private.team_passkeys (id, member_id, public_key, device_type, backed_up, name)
       select 'a25vd24tdG8tdGhlLXRlYW0', id, '\\x00', 'singleDevice', false, 'Lost laptop'
         from private.team_members where email = 'viewer@lab.example'`,
    )
    for (let attempt = 0; attempt < 3; attempt++)
      expect(
        (await studio('/auth/sign-in/verify', { json: { response: assertion('a25vd24tdG8tdGhlLXRlYW0') } }))
          .status,
      ).toBe(401)
    const known = (await record()).filter(
      (line) => line.action === 'sign-in failed' && line.actor === 'viewer@lab.example',
    )
    expect(known).toHaveLength(3)
    expect(known.map((line) => line.times)).toEqual([1, 1, 1])
  })

  it("records a viewer's refused invite, tag, note and export, folded, and a stranger's 401s per network", async () => {
    const refusedBy = async (path: string, json?: unknown) => {
      const answer = await studio(path, { cookie: viewer, json })
      expect(answer.status, path).toBe(403)
    }
    for (let time = 0; time < 3; time++) await refusedBy('/api/invite', { count: 1 })
    await refusedBy('/api/tag', { emails: ['a@example.com'], tag: 'vip' })
    await refusedBy('/api/tag', { emails: ['b@example.com'], tag: 'other' })
    await refusedBy('/api/note', { email: 'a@example.com', note: 'hi' })
    await refusedBy('/api/export.csv')
    // Without a session: made-up paths and methods are one "unknown request", never their own words.
    const strangers = await Promise.all([
      ...Array.from({ length: 30 }, () => studio('/api/summary')),
      ...Array.from({ length: 10 }, (_, index) => studio(`/api/made-up-${index}?q=${index}`, { json: {} })),
      studio('/api/summary', { cookie: 'x'.repeat(43) }),
    ])
    expect(strangers.map((answer) => answer.status)).toEqual(Array(41).fill(401))

    const refused = (await record())
      .filter((line) => line.action === 'refused')
      .map(({ actor, detail, times, from }) => ({ actor, detail, times, from }))
    const from = '127.0.0.0/24'
    // The viewer's in the order asked; the strangers' arrived at once.
    expect(refused.slice(0, 4)).toEqual([
      {
        actor: 'viewer@lab.example',
        detail: 'POST /api/invite: a viewer may not invite people',
        times: 3,
        from,
      },
      { actor: 'viewer@lab.example', detail: 'POST /api/tag: a viewer may not tag entries', times: 2, from },
      { actor: 'viewer@lab.example', detail: 'POST /api/note: a viewer may not write notes', times: 1, from },
      {
        actor: 'viewer@lab.example',
        detail: 'GET /api/export.csv: a viewer may not export the list',
        times: 1,
        from,
      },
    ])
    expect(refused.slice(4)).toEqual(
      expect.arrayContaining([
        { actor: '(no session)', detail: 'GET /api/summary: signed out', times: 30, from },
        { actor: '(no session)', detail: 'an unknown request: signed out', times: 10, from },
        { actor: '(ended session)', detail: 'GET /api/summary: signed out', times: 1, from },
      ]),
    )
    expect(refused).toHaveLength(7)

    // The Activity page reads the same lines, with how many times.
    const activity = (await (await studio('/api/activity', { cookie: viewer })).json()) as {
      lines: AuditEntry[]
    }
    expect(activity.lines.find((line) => line.detail.startsWith('POST /api/invite'))).toMatchObject({
      times: 3,
    })
  })

  it('refuses TRUNCATE of the record, and any change to the counts beside it but a rise', async () => {
    const lines = await lineCount()
    await expect(db.query('truncate private.audit_log cascade')).rejects.toThrow(
      'the audit record is only ever added to',
    )
    await expect(db.query('truncate private.audit_repeats')).rejects.toThrow('only ever added to')
    await expect(db.query('update private.audit_repeats set repeats = 0')).rejects.toThrow(
      'only ever added to',
    )
    await expect(db.query('delete from private.audit_repeats')).rejects.toThrow('only ever added to')
    expect(await lineCount()).toBe(lines)
    expect((await record()).find((line) => line.action === 'sign-in failed')?.times).toBe(60)
  })
})
