import { tmpdir } from 'node:os'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { sessionCookieOf, storedPasskey, type TestMember, teamMember } from '../../harness/team-session'
import { runCli } from '../../harness/waitlist-cli'
import { createTeamStudio } from '../../owner/team-studio/team-studio-app'
import { readAudit } from '../../server/audit/audit-report'
import { relyingPartyOf } from '../../server/boot/team-studio-mount'
import type { Database } from '../../server/db/database'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { sessionDevice } from '../../server/team/session-device'

/**
 * Issue 61, a lost device: a session remembers the passkey that made it. Removing the passkey ends
 * its sessions; `team link` ends the member's sessions, `--revoke` their passkeys too; a member
 * sees their own sessions and ends any of them, never another member's. Through the team studio's
 * own app and the real CLI; tests/e2e/team-studio.spec.ts does it with real passkeys in Chromium.
 */

const SITE = 'https://lab.example'
let opened: OpenedDatabase
let db: Database
let app: Hono
let cliEnv: Record<string, string>

beforeAll(async () => {
  const url = await sharedPostgresUrl()
  opened = await openDatabase({ databaseUrl: url, dataDir: tmpdir(), purpose: 'test' })
  db = opened.db
  cliEnv = { DATABASE_URL: url, SITE_URL: SITE }
  app = createTeamStudio({
    db,
    files: new Map([
      ['/', { body: Buffer.from('<!doctype html><title>studio</title>'), contentType: 'text/html' }],
    ]),
    relyingParty: () => relyingPartyOf(SITE),
    secure: true,
    // The proxy's header names the client, as behind Caddy: the session keeps its network.
    trustProxyHeader: 'x-forwarded-for',
    invite: { fallback: { SITE_URL: SITE, PORT: 3000 } },
    backup: { DATA_DIR: '.' },
  })
})
afterAll(async () => {
  await opened?.close()
  await stopBackends()
})

const get = (path: string, cookie: string, from = '192.0.2.10') =>
  app.request(path, { headers: { Cookie: cookie, 'X-Forwarded-For': from } })
const post = (path: string, cookie: string, body: unknown, origin: string | null = SITE) =>
  app.request(path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { Cookie: cookie, 'Content-Type': 'application/json', ...(origin ? { Origin: origin } : {}) },
  })
const status = async (cookie: string) => (await get('/api/me', cookie)).status

/** A member with a passkey per name. */
async function withPasskeys(email: string, ...names: string[]) {
  const member = await teamMember(db, email, 'member')
  const passkeys: string[] = []
  for (const name of names) passkeys.push(await storedPasskey(db, member, name))
  return { member, passkeys }
}

const signIn = (member: TestMember, passkeyId: string, device = 'Chrome on Linux') =>
  sessionCookieOf(db, member, { passkeyId, device, network: '203.0.113.0/24' })

describe("a member's sessions", () => {
  it('end with the passkey that made them, and only those', async () => {
    const { member, passkeys } = await withPasskeys('lost@lab.example', 'Old phone', 'Laptop')
    const [phone = '', laptop = ''] = passkeys
    const onPhone = await signIn(member, phone, 'Safari on iPhone')
    const againOnPhone = await signIn(member, phone, 'Safari on iPhone')
    const onLaptop = await signIn(member, laptop)
    expect([await status(onPhone), await status(againOnPhone), await status(onLaptop)]).toEqual([
      200, 200, 200,
    ])

    const removed = await post('/api/passkeys/remove', onLaptop, { id: phone })
    expect(removed.status).toBe(200)
    expect([await status(onPhone), await status(againOnPhone), await status(onLaptop)]).toEqual([
      401, 401, 200,
    ])
    expect(await removed.json()).toEqual({ removed: true, sessionsEnded: 2 })
  })

  it('are listed to their member alone (device, network, last seen, this one marked); the member ends any, never another’s', async () => {
    const { member, passkeys } = await withPasskeys('two@lab.example', 'Laptop', 'Phone')
    const [laptop = '', phone = ''] = passkeys
    const here = await signIn(member, laptop)
    const there = await signIn(member, phone, 'Firefox on Android')
    const other = await withPasskeys('other@lab.example', 'Theirs')
    const theirs = await signIn(other.member, other.passkeys[0] ?? '')
    // The idle clock and the network are written at most once a minute: a minute on, this request's.
    await db.run(
      `update private.team_sessions set last_seen_at = now() - interval '2 minutes'
        where member_id = $1::bigint`,
      [member.memberId],
    )
    expect((await get('/api/me', here, '198.51.100.7')).status).toBe(200)

    const listed = await get('/api/sessions', here)
    expect(listed.status).toBe(200)
    const { sessions } = (await listed.json()) as { sessions: Record<string, unknown>[] }
    expect(sessions).toHaveLength(2)
    expect(sessions[0]).toMatchObject({
      device: 'Chrome on Linux',
      network: '198.51.100.0/24',
      passkey: 'Laptop',
      current: true,
    })
    expect(sessions[1]).toMatchObject({
      device: 'Firefox on Android',
      network: '203.0.113.0/24',
      passkey: 'Phone',
      current: false,
    })
    expect(sessions[0]?.lastSeenAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/)
    expect(JSON.stringify(sessions)).not.toMatch(/token|hash/i)

    const [theirSession] = (await (await get('/api/sessions', theirs)).json()).sessions as { id: string }[]
    const ownOther = String(sessions[1]?.id)
    // A change from no Origin (another site's form) never reaches the route.
    expect((await post('/api/sessions/end', here, { id: ownOther }, null)).status).toBe(403)
    expect((await post('/api/sessions/end', here, { id: theirSession?.id })).status).toBe(404)
    expect(await status(theirs)).toBe(200)
    // An end is a few bytes: a larger body is refused before it is read whole.
    const large = await post('/api/sessions/end', here, { id: ownOther, pad: 'x'.repeat(100 * 1024) })
    expect(large.status).toBe(413)
    expect(await status(there)).toBe(200)
    const ended = await post('/api/sessions/end', here, { id: ownOther })
    expect(ended.status).toBe(200)
    expect(await ended.json()).toEqual({ ended: 'Firefox on Android' })
    expect([await status(there), await status(here)]).toEqual([401, 200])
    const { lines } = await readAudit(db, { limit: 100 })
    expect(lines.find((line) => line.action === 'session end')).toMatchObject({
      actor: 'two@lab.example',
      detail: 'Firefox on Android',
    })
  })

  it('all end at `team link`, which says so; `--revoke` removes every passkey of theirs too', async () => {
    const { member, passkeys } = await withPasskeys('device@lab.example', 'Laptop', 'Phone')
    const [laptop = '', phone = ''] = passkeys
    const sessions = [await signIn(member, laptop), await signIn(member, phone)]
    const linked = await runCli(cliEnv, 'team', 'link', 'device@lab.example')
    expect(linked.code, linked.stderr).toBe(0)
    expect(linked.stdout).toMatch(/^ {2}https:\/\/lab\.example\/studio\/enrol#[\w-]{43}$/m)
    expect(linked.stdout).toContain(
      'Signed device@lab.example out everywhere: 2 sessions ended; each device signs in again.',
    )
    expect([await status(sessions[0] ?? ''), await status(sessions[1] ?? '')]).toEqual([401, 401])
    // The passkeys stay: the member signs in again with them.
    expect((await runCli(cliEnv, 'team', 'list')).stdout).toContain('device@lab.example  member  2 passkeys')
    const again = await signIn(member, laptop)
    expect(await status(again)).toBe(200)

    const revoked = await runCli(cliEnv, 'team', 'link', 'device@lab.example', '--revoke')
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stdout).toContain('1 session ended')
    expect(revoked.stdout).toContain(
      'Removed 2 passkeys of theirs: only the passkey made with this link will sign in.',
    )
    expect(await status(again)).toBe(401)
    expect((await runCli(cliEnv, 'team', 'list')).stdout).toContain(
      'device@lab.example  member  0 passkeys, never signed in, enrolment link open',
    )
    const audit = (await runCli(cliEnv, 'audit', '--json')).stdout
    expect(audit).toContain('"action":"team link","detail":"device@lab.example; 2 sessions ended"')
    expect(audit).toContain(
      '"action":"team link","detail":"device@lab.example; 1 session ended, 2 passkeys removed"',
    )
    const misplaced = await runCli(cliEnv, 'team', 'remove', 'device@lab.example', '--revoke')
    expect(misplaced.code).toBe(2)
    expect(misplaced.stderr).toContain('--revoke goes with team link')
  })

  it("name their device in a few words, never the User-Agent's versions", () => {
    const chrome =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36'
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'
    const edge =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0'
    const firefox = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:133.0) Gecko/20100101 Firefox/133.0'
    expect([chrome, iphone, edge, firefox].map(sessionDevice)).toEqual([
      'Chrome on Linux',
      'Safari on iPhone',
      'Edge on Windows',
      'Firefox on macOS',
    ])
    expect(sessionDevice(undefined)).toBe('An unknown browser')
    expect(sessionDevice('curl/8.5.0')).toBe('An unknown browser')
  })
})
