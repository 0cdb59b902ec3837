import { describe, expect } from 'vitest'
import { inviteNamed } from '../../server/waitlist/invite/invitations'
import { confirm } from '../../server/waitlist/link-actions'
import { mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { insertStatus } from './support'

/**
 * Issue 30's flood, as a stranger would run it: 30 client addresses, each within its rate limit
 * (a burst of 5), sign up 150 addresses with CONFIRM_SIGNUPS on; 3 invitations are queued behind
 * their confirmations. MAIL_PER_MINUTE=60 is one message a second: with confirmations first, the
 * invitations would wait for all 150 (two and a half minutes); with the two lanes taking turns they
 * go out in the 1st, 3rd and 5th slots after they are queued, some 5 s.
 */
const PER_MINUTE = 60
const CLIENTS = 30
const PER_CLIENT = 5
const invitees = ['ivy.flood@example.com', 'jon.flood@example.com', 'kim.flood@example.com']

let mail: MailTestServer

const it = mailTest({
  CONFIRM_SIGNUPS: 'true',
  MAIL_PER_MINUTE: String(PER_MINUTE),
  TRUST_PROXY_HEADER: 'X-Forwarded-For',
})

// The file's helpers read these, set once from the fixtures.
it.beforeAll(async ({ mail: started }) => {
  mail = started
})

const arrivedFor = (addresses: string[]) =>
  mail.sink.received.filter((mail) => mail.to.some((to) => addresses.includes(to)))

describe('a confirmation flood while invitations wait', () => {
  it('sends the invitations within 30 s, the confirmations taking only every other slot', async () => {
    // The invitees signed up and confirmed before the flood.
    for (const email of invitees) expect(await insertStatus(mail.server, email)).toBe(201)
    // Each follows the link in the confirmation they got (a confirmation goes only to the unconfirmed).
    await mail.sink.waitFor(() => arrivedFor(invitees).length === 3, 'the invitees’ confirmations')
    for (const email of invitees) expect(await confirm(mail.database.db, email)).toBe('done')

    const flood = Array.from({ length: CLIENTS }, (_, client) =>
      (async () => {
        const headers = { 'X-Forwarded-For': `198.51.100.${client + 1}` }
        for (let i = 0; i < PER_CLIENT; i++)
          expect(await insertStatus(mail.server, `stranger${client}-${i}@example.net`, headers)).toBe(201)
      })(),
    )
    await Promise.all(flood)
    const sentBefore = mail.sink.received.length

    const queuedAt = Date.now()
    const queued = await inviteNamed(mail.database.db, invitees, {
      resend: false,
      messageDomain: 'tessel-labs.example',
    })
    expect(queued.queued).toHaveLength(3)
    await mail.sink.waitFor(
      () => arrivedFor(invitees).length >= 6,
      'three confirmations and three invitations',
      60_000,
    )
    const lastInvitation = arrivedFor(invitees).at(-1)
    const seconds = ((lastInvitation?.at ?? 0) - queuedAt) / 1000
    console.log(`flood: the 3 invitations arrived within ${seconds.toFixed(1)} s of being queued`)

    // Counted in slots rather than seconds: after the invitations were queued, no more than one
    // confirmation went between two of them (the one in flight at queueing may add one).
    const after = mail.sink.received.slice(sentBefore)
    const third = lastInvitation ? after.indexOf(lastInvitation) : -1
    const strangers = after.slice(0, third).filter((mail) => mail.to[0]?.startsWith('stranger')).length
    expect(strangers).toBeLessThanOrEqual(4)
    expect(seconds).toBeLessThan(30)
    // The flood is still being confirmed, at half the pace, not dropped.
    const [pending] = await mail.database.db.query<{ n: number }>(
      `select count(*)::int as n from private.mail_outbox where kind = 'confirmation' and status = 'pending'`,
    )
    expect(pending?.n).toBeGreaterThan(100)
  })

  it('gives a new signup its confirmation in turn while a batch of invitations waits', async () => {
    await mail.database.db.query(
      `update private.mail_outbox set status = 'cancelled' where status = 'pending'`,
    )
    const batch = Array.from({ length: 40 }, (_, i) => `batch${i}@example.org`)
    await mail.database.db.query(`insert into public.waitlist (email) select unnest($1::text[])`, [batch])
    await mail.database.db.query(
      `update private.entry_status set status = 'waiting' where waitlist_id in
         (select id from public.waitlist where email like 'batch%')`,
    )
    await mail.database.db.query(
      `update private.mail_outbox set status = 'cancelled' where status = 'pending'`,
    )
    const sentBefore = mail.sink.received.length
    await inviteNamed(mail.database.db, batch, { resend: false, messageDomain: 'tessel-labs.example' })
    const late = 'late.signup@example.com'
    expect(await insertStatus(mail.server, late, { 'X-Forwarded-For': '203.0.113.9' })).toBe(201)
    await mail.sink.waitFor(
      () => mail.sink.countFor(late) === 1,
      'the confirmation of the late signup',
      60_000,
    )
    const after = mail.sink.received.slice(sentBefore)
    const index = after.findIndex((mail) => mail.to.includes(late))
    expect(index, 'at most two invitations went before it').toBeLessThanOrEqual(2)
  })
})
