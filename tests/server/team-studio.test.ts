import { tmpdir } from 'node:os'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { studioReturn } from '../../contract/studio-return'
import { ROLES } from '../../contract/team-roles'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { sessionCookieOf, storedPasskey, teamMember } from '../../harness/team-session'
import { runCli } from '../../harness/waitlist-cli'
import { sessionCookie } from '../../owner/team-studio/session-cookie'
import { studioRoutes } from '../../owner/team-studio/studio-routes'
import { createTeamStudio } from '../../owner/team-studio/team-studio-app'
import { auditOfEntry, readAudit } from '../../server/audit/audit-report'
import { relyingPartyOf } from '../../server/boot/team-studio-mount'
import type { Database } from '../../server/db/database'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { MemoryStore } from '../../server/rate-limit/memory-store'
import { keepChallenge, takeChallenge } from '../../server/team/challenges'
import { enrolling } from '../../server/team/enrolment-links'
import { addMember, newLink, removeMember, setRole } from '../../server/team/team-members'
import { sessionMember } from '../../server/team/team-sessions'
import { entryHistory } from '../../server/waitlist/admin/entry-history'
import { eraseEntry } from '../../server/waitlist/erasure'
import { queueInvite } from '../../server/waitlist/invite/invite-service'

/**
 * Issue 54's rules below the browser (tests/e2e/team-studio.spec.ts drives the passkeys): each
 * route's need read in one table, the session's life, the Origin, enrolment links and challenges
 * used once, the team's last owner, and a record that is only added to and keeps a removed entry's
 * lines without its address.
 */

const SITE = 'https://lab.example'
const CLI = { name: 'cli:test' }
let opened: OpenedDatabase
let db: Database
let app: Hono

beforeAll(async () => {
  opened = await openDatabase({ databaseUrl: await sharedPostgresUrl(), dataDir: tmpdir(), purpose: 'test' })
  db = opened.db
  const files = new Map([
    ['/', { body: Buffer.from('<!doctype html><title>studio</title>'), contentType: 'text/html' }],
  ])
  app = createTeamStudio({
    db,
    files,
    relyingParty: () => relyingPartyOf(SITE),
    secure: true,
    invite: { fallback: { SITE_URL: SITE, BETA_URL: 'https://beta.tessel-labs.com/', PORT: 3000 } },
    backup: { DATA_DIR: '.' },
  })
})
afterAll(async () => {
  await opened?.close()
  await stopBackends()
})

/** A member of `role` signed in with a passkey of theirs: their session's cookie header. */
async function signedIn(email: string, role: 'viewer' | 'member' | 'owner'): Promise<string> {
  const member = await teamMember(db, email, role)
  return sessionCookieOf(db, member, { passkeyId: await storedPasskey(db, member, 'Laptop') })
}

const call = (path: string, cookie: string, init: RequestInit = {}) =>
  app.request(path, { ...init, headers: { Cookie: cookie, ...init.headers } })
const post = (path: string, cookie: string, body: unknown, origin: string | null = SITE) =>
  call(path, cookie, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(origin ? { Origin: origin } : {}) },
  })

describe('the team studio', () => {
  it('answers its API from one route table, each row with the role it needs, and nothing outside it', () => {
    const routes = app.routes
      .filter(
        (route) => route.method !== 'ALL' && (route.path.startsWith('/api/') || route.path.endsWith('.html')),
      )
      .map((route) => `${route.method} ${route.path}`)
    const relyingParty = () => relyingPartyOf(SITE)
    const table = studioRoutes({
      db,
      invite: { fallback: { PORT: 3000 } },
      backup: { DATA_DIR: '.' },
      team: { db, relyingParty },
    })
    const rows = table.map((route) => `${route.method} ${route.path}`)
    expect([...new Set(routes)].sort()).toEqual([...rows].sort())
    expect(new Set(rows).size).toBe(rows.length)
    for (const route of table) expect(ROLES, `${route.method} ${route.path}`).toContain(route.need.role)
    // The local studio's table: the same rows, but the team's own (it has no member to run them).
    const local = studioRoutes({ db, invite: { fallback: { PORT: 3000 } }, backup: { DATA_DIR: '.' } }).map(
      (r) => `${r.method} ${r.path}`,
    )
    expect(local.length).toBeGreaterThan(15)
    expect(
      rows.filter((row) => !local.includes(row)).every((row) => /\/api\/(team|passkeys|sessions)/.test(row)),
    ).toBe(true)
    expect(local).toContain('GET /api/activity')
  })

  it("refuses by role in the member's words, the Origin of a change, and a session that has ended", async () => {
    const viewer = await signedIn('viewer@lab.example', 'viewer')
    const member = await signedIn('member@lab.example', 'member')
    expect((await call('/api/summary', viewer)).status).toBe(200)
    const invite = await post('/api/invite', viewer, { count: 1 })
    expect(invite.status).toBe(403)
    expect((await invite.json()).error).toBe(
      'You are a viewer on this team, and members and owners may invite people. An owner can change your role.',
    )
    const remove = await post('/api/remove', member, { email: 'a@example.com' })
    expect((await remove.json()).error).toMatch(
      /^You are a member on this team, and owners only may remove entries/,
    )
    expect((await call('/api/export.csv', member)).status).toBe(403)
    // A change needs the studio's own Origin: none, or another site's, is refused before any route.
    expect((await post('/api/invite/test', member, { email: 'me@lab.example' }, null)).status).toBe(403)
    expect(
      (await post('/api/invite/test', member, { email: 'me@lab.example' }, 'https://evil.example')).status,
    ).toBe(403)
    // Unknown to the table: nobody may.
    expect((await call('/api/nothing', member)).status).toBe(404)
    // 12 idle hours end a session; so do 7 days, however busy.
    await db.query(
      `update private.team_sessions s set last_seen_at = now() - interval '13 hours'
         from private.team_members m where m.id = s.member_id and m.email = 'viewer@lab.example'`,
    )
    expect((await call('/api/summary', viewer)).status).toBe(401)
    await db.query(
      `update private.team_sessions s set created_at = now() - interval '8 days'
         from private.team_members m where m.id = s.member_id and m.email = 'member@lab.example'`,
    )
    expect((await call('/api/summary', member)).status).toBe(401)
  })

  it('returns a signed-out visit to the page and filters it asked for once signed in, never off /studio', async () => {
    const view = '/studio/?status=waiting&answer=role%3DResearch&sort=answer_organisation&order=desc'
    const signedOut = await app.request(view.slice('/studio'.length))
    expect(signedOut.status).toBe(303)
    const signIn = signedOut.headers.get('location') ?? ''
    expect(signIn).toBe(`/studio/sign-in?next=${encodeURIComponent(view)}`)
    expect((await app.request('/activity')).headers.get('location')).toBe(
      `/studio/sign-in?next=${encodeURIComponent('/studio/activity')}`,
    )
    expect((await app.request('/')).headers.get('location')).toBe('/studio/sign-in')
    // Signed in, the sign-in page sends the member on to where they were going, as the page does
    // after the passkey (sign-in-page.tsx, through the same check).
    const member = await signedIn('returning@lab.example', 'viewer')
    const back = await call(signIn.slice('/studio'.length), member)
    expect(back.status).toBe(303)
    expect(back.headers.get('location')).toBe(view)
    for (const away of [
      'https://evil.example/studio/',
      '//evil.example/studio/',
      '/\\evil.example/studio/',
      '/studio/../api/export.csv',
      '/studio/%2e%2e/admin',
      '/studiox/',
      'studio/',
      '/studio/sign-in?next=%2F%2Fevil.example',
      '/studio/\nfoo',
    ]) {
      const refused = await call(`/sign-in?next=${encodeURIComponent(away)}`, member)
      expect(refused.headers.get('location'), away).toBe('/studio/')
    }
    expect(studioReturn('/studio')).toBe('/studio/')
    expect(studioReturn('/studio/team?x=1#frag')).toBe('/studio/team?x=1')
  })

  it("puts sign-in attempts through the site's rate limit", async () => {
    const limited = createTeamStudio({
      db,
      files: new Map(),
      relyingParty: () => relyingPartyOf(SITE),
      secure: true,
      rateLimiter: new MemoryStore({ perMinute: 1, burst: 2 }),
      invite: { fallback: { SITE_URL: SITE, PORT: 3000 } },
      backup: { DATA_DIR: '.' },
    })
    const attempt = () =>
      limited.request('/auth/sign-in/options', { method: 'POST', headers: { Origin: SITE } })
    expect((await attempt()).status).toBe(200)
    expect((await attempt()).status).toBe(200)
    const refused = await attempt()
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect((await refused.json()).error).toMatch(
      /^Too many requests from this address\. Try again in \d+ seconds?\.$/,
    )
  })

  it('sends a __Host- cookie on HTTPS: HttpOnly, Secure, SameSite=Strict, Path=/; a plain one keeps to /studio', async () => {
    const probe = new Hono()
    probe.get('/secure', (c) => {
      sessionCookie(true).set(c, 'x'.repeat(43))
      return c.body(null)
    })
    probe.get('/plain', (c) => {
      sessionCookie(false).set(c, 'x'.repeat(43))
      return c.body(null)
    })
    expect((await probe.request('/secure')).headers.get('set-cookie')).toBe(
      `__Host-studio-session=${'x'.repeat(43)}; Max-Age=604800; Path=/; HttpOnly; Secure; SameSite=Strict`,
    )
    expect((await probe.request('/plain')).headers.get('set-cookie')).toBe(
      `studio-session=${'x'.repeat(43)}; Max-Age=604800; Path=/studio; HttpOnly; SameSite=Strict`,
    )
  })

  it('uses an enrolment link once within 24 hours, a new one replacing it; a challenge once, before it expires', async () => {
    const added = await addMember(db, CLI, 'new@lab.example', 'member')
    const first = added.done ? added.token : undefined
    expect(await enrolling(db, first)).toMatchObject({ email: 'new@lab.example', role: 'member' })
    const again = await newLink(db, CLI, 'new@lab.example')
    expect(await enrolling(db, first)).toBeUndefined()
    const second = again.done ? again.token : undefined
    await db.query(`update private.team_enrolments set expires_at = now() - interval '1 second'`)
    expect(await enrolling(db, second)).toBeUndefined()
    expect(await enrolling(db, 'not a token')).toBeUndefined()

    await keepChallenge(db, 'c'.repeat(43), 'sign-in')
    expect(await takeChallenge(db, 'c'.repeat(43), 'register')).toBe(false)
    expect(await takeChallenge(db, 'c'.repeat(43), 'sign-in')).toBe(true)
    expect(await takeChallenge(db, 'c'.repeat(43), 'sign-in')).toBe(false)
    await keepChallenge(db, 'd'.repeat(43), 'sign-in')
    await db.query(`update private.team_challenges set expires_at = now() - interval '1 second'`)
    expect(await takeChallenge(db, 'd'.repeat(43), 'sign-in')).toBe(false)
  })

  it('keeps an owner while others remain; removing a member ends their sessions at once', async () => {
    await signedIn('owner@lab.example', 'owner')
    expect(await setRole(db, CLI, 'owner@lab.example', 'member')).toMatchObject({ done: false })
    expect(await removeMember(db, CLI, 'owner@lab.example')).toMatchObject({ done: false })
    const leaving = await signedIn('leaving@lab.example', 'viewer')
    const token = leaving.split('=')[1]
    expect(await sessionMember(db, token)).toMatchObject({ email: 'leaving@lab.example' })
    expect(await removeMember(db, CLI, 'leaving@lab.example')).toEqual({ done: true })
    expect(await sessionMember(db, token)).toBeUndefined()
  })

  it('keeps the record append-only; a removed entry keeps its lines, without its address', async () => {
    await db.query(`insert into public.waitlist (email) values ('ada@example.com')`)
    const [entry] = await db.query<{ id: string }>(
      `select id::text as id from public.waitlist where email = 'ada@example.com'`,
    )
    const request = { choice: { emails: ['ada@example.com'] }, resend: false, chosenBy: '1 named' }
    const queued = await queueInvite(
      db,
      { ...request, actor: { via: 'studio', name: 'member@lab.example' } },
      {
        SITE_URL: SITE,
        BETA_URL: 'https://beta.tessel-labs.com/',
        PORT: 3000,
      },
    )
    expect('queued' in queued && queued.queued).toHaveLength(1)
    expect(await auditOfEntry(db, entry?.id ?? '')).toMatchObject([
      { actor: 'member@lab.example', action: 'invite' },
    ])
    // `show` and the entry's panel: the invitation names who sent it.
    const shown = await entryHistory(db, 'ADA@example.com')
    expect(shown?.history.find((item) => item.event === 'invited')).toMatchObject({
      by: 'member@lab.example',
    })
    await expect(db.query(`update private.audit_log set actor = 'someone else'`)).rejects.toThrow(
      'the audit record is only ever added to',
    )
    await expect(db.query('delete from private.audit_log')).rejects.toThrow('only ever added to')

    expect(await eraseEntry(db, 'ada@example.com', 'removed', CLI)).toBe('ada@example.com')
    const { lines } = await readAudit(db, { limit: 100 })
    expect(lines.find((line) => line.action === 'invite')).toMatchObject({
      actor: 'member@lab.example',
      count: 1,
    })
    expect(lines.find((line) => line.action === 'remove')).toMatchObject({
      actor: 'cli:test',
      count: 1,
      detail: '',
    })
    expect(JSON.stringify(lines)).not.toContain('ada@example.com')
    const [links] = await db.query<{ n: number }>('select count(*)::int as n from private.audit_entries')
    expect(links?.n).toBe(0)
  })

  it('`team` and `audit` on the command line: usage exits 2, a refusal 1, and the record in JSON Lines', async () => {
    const env = { DATABASE_URL: await sharedPostgresUrl(), SITE_URL: 'https://lab.example' }
    expect((await runCli(env, 'team', 'add', 'ada@lab.example')).code).toBe(2)
    expect((await runCli(env, 'team', 'role', 'ada@lab.example', 'admin')).code).toBe(2)
    const added = await runCli(env, 'team', 'add', 'ada@lab.example', '--role', 'owner')
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toMatch(/^ {2}https:\/\/lab\.example\/studio\/enrol#[\w-]{43}$/m)
    const twice = await runCli(env, 'team', 'add', 'ada@lab.example', '--role', 'viewer')
    expect(twice.code).toBe(1)
    expect(twice.stderr).toContain('ada@lab.example is on the team already')
    expect((await runCli(env, 'team', 'list')).stdout).toContain(
      'ada@lab.example  owner  0 passkeys, never signed in',
    )
    const audit = await runCli(env, 'audit', '--since', '2000-01-01', '--json')
    expect(audit.code, audit.stderr).toBe(0)
    const [line] = audit.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text))
    expect(line).toMatchObject({ action: 'team add', detail: 'ada@lab.example as owner', count: 0, from: '' })
    expect(line.actor).toMatch(/^cli:/)
  })
})
