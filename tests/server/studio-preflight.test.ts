import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Role } from '../../contract/team-roles'
import { freePort } from '../../harness/postgres-cluster'
import { storedPasskey, teamMember } from '../../harness/team-session'
import { postWaitlist } from '../../harness/waitlist-api'
import { auditRecord } from '../../harness/waitlist-cli'
import { startSession } from '../../server/team/team-sessions'
import { entryStatus } from '../support/entry-status'
import { type LocalDns, startLocalDns } from '../support/local-dns'
import { unalignedSender } from '../support/mail-dns'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { teamStudioCall } from '../support/requests'

/**
 * The team studio's side of a failing preflight (issue 66, items 3 and 4), on a real server over
 * HTTP with the test's DNS and a real SMTP server: From aligns with neither DKIM nor SPF (as in
 * preflight-hold.test.ts). The studio shows the last run's lines; a member's "Send anyway" is
 * refused by the route table and sends nothing; an owner's sends, and the record names the owner
 * and the checks skipped, in the words `invite --skip-preflight` writes.
 */
const FROM_DOMAIN = 'tessel-labs.org'
const BOUNCE_DOMAIN = 'tessel-mail.net'
const grace = 'grace.held@example.com'

let dns: LocalDns
let mail: MailTestServer
let site: string
const tokens: Partial<Record<Role, string>> = {}

/** A member of `role`, signed in with a passkey of theirs: their session's token. */
async function signedIn(email: string, role: Role): Promise<string> {
  const db = mail.database.db
  const member = await teamMember(db, email, role)
  const passkeyId = await storedPasskey(db, member, 'Laptop')
  return db.transaction((tx) =>
    startSession(tx, member.memberId, { passkeyId, device: 'Chrome on Linux', network: undefined }),
  )
}

const studio = (role: Role, path: string, json?: unknown) =>
  teamStudioCall(site, tokens[role] ?? '', path, json === undefined ? {} : { json })

const queuedMail = async () =>
  (await mail.database.db.query<{ n: number }>('select count(*)::int as n from private.mail_outbox'))[0]?.n

interface Line {
  check: string
  status: string
  says: string
  read?: string
  publish?: string
}

beforeAll(async () => {
  dns = await startLocalDns(unalignedSender(FROM_DOMAIN, BOUNCE_DOMAIN))
  const port = await freePort()
  site = `http://localhost:${port}`
  mail = await startMailTestServer({
    PORT: String(port),
    SITE_URL: site,
    MAIL_FROM: `Tessel Labs <beta@${FROM_DOMAIN}>`,
    MAIL_RETURN_PATH: `bounces@${BOUNCE_DOMAIN}`,
    MAIL_PER_MINUTE: '0',
    DNS_SERVERS: dns.server,
  })
  tokens.owner = await signedIn('owner@lab.example', 'owner')
  tokens.member = await signedIn('member@lab.example', 'member')
  tokens.viewer = await signedIn('viewer@lab.example', 'viewer')
  expect((await postWaitlist(mail.server, { email: grace })).status).toBe(201)
}, 60_000)

afterAll(async () => {
  await mail?.close()
  await dns?.close()
})

describe("the studio's preflight", () => {
  it('says none has run yet, to members and owners only', async () => {
    const none = await studio('member', '/api/preflight')
    expect(none.status).toBe(200)
    expect(await none.json()).toEqual({
      checkedAt: null,
      mailFrom: null,
      passed: false,
      lines: [],
      senderConfigured: true,
    })
    const viewer = await studio('viewer', '/api/preflight')
    expect(viewer.status).toBe(403)
  })

  it("holds a member's batch with the failing lines, and refuses their Send anyway: no mail", async () => {
    const held = await studio('member', '/api/invite', { count: 1 })
    expect(held.status).toBe(409)
    const body = (await held.json()) as { preflight: Line[] }
    expect(body.preflight).toContainEqual(
      expect.objectContaining({ check: 'DMARC alignment', status: 'fail' }),
    )
    const anyway = await studio('member', '/api/invite/anyway', { count: 1 })
    expect(anyway.status).toBe(403)
    expect(((await anyway.json()) as { error: string }).error).toBe(
      'You are a member on this team, and owners only may send invitations although the preflight fails. ' +
        'An owner can change your role.',
    )
    const selected = await studio('member', '/api/invite/selected/anyway', { emails: [grace] })
    expect(selected.status).toBe(403)
    expect(await queuedMail()).toBe(0)
    expect(await entryStatus(mail.database.db, grace)).toBe('waiting')
    expect(mail.sink.countFor(grace)).toBe(0)
  })

  it('shows the last run: when, for whom, failed, each check with the record read and what to publish', async () => {
    const last = (await (await studio('member', '/api/preflight')).json()) as {
      checkedAt: string
      mailFrom: string
      passed: boolean
      lines: Line[]
    }
    expect(last.passed).toBe(false)
    expect(last.mailFrom).toContain(`<beta@${FROM_DOMAIN}>`)
    expect(Date.now() - Date.parse(last.checkedAt)).toBeLessThan(60_000)
    const alignment = last.lines.find((line) => line.check === 'DMARC alignment')
    expect(alignment?.status).toBe('fail')
    expect(alignment?.says).toMatch(/^From tessel-labs.org aligns with neither DKIM/)
    expect(alignment?.publish).toBeTruthy()
    expect(last.lines.find((line) => line.check === 'SPF')).toMatchObject({ status: 'pass' })
    expect(last.lines.find((line) => line.check === 'SPF')?.read).toMatch(/^v=spf1 /)
    // "Check again": a new run, answered by the running server.
    const again = await studio('member', '/api/preflight', {})
    expect(again.status).toBe(200)
    const run = (await again.json()) as { checkedAt: string; passed: boolean }
    expect(run.passed).toBe(false)
    expect(Date.parse(run.checkedAt)).toBeGreaterThan(Date.parse(last.checkedAt))
  })

  it("sends an owner's Send anyway, and the record names the owner and the checks skipped", async () => {
    const sent = await studio('owner', '/api/invite/anyway', { count: 1 })
    expect(sent.status).toBe(200)
    expect(((await sent.json()) as { queued: number }).queued).toBe(1)
    await mail.sink.waitFor(() => mail.sink.countFor(grace) >= 1, `the invitation to ${grace}`)
    expect(await entryStatus(mail.database.db, grace)).toBe('invited')
    const invite = (await auditRecord(mail.server.env)).find((line) => line.action === 'invite')
    expect(invite?.actor).toBe('owner@lab.example')
    expect(invite?.detail).toMatch(/: next 1 .*--skip-preflight \(failing: DMARC alignment\)$/)
    const [batch] = await mail.database.db.query<{ by: string; chosen: string }>(
      'select invited_by as by, chosen_by as chosen from private.invite_batches order by id desc limit 1',
    )
    expect(batch).toEqual({
      by: 'studio',
      chosen: expect.stringContaining('--skip-preflight (failing: DMARC alignment)'),
    })
  })
})
