import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clusterCpuMicros, cpuMicros } from '../../bench/process-cpu'
import { ENTRY_STATUSES } from '../../contract/entry-statuses'
import { postmasterPid } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { insertStatus } from '../reliability/support'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { MAY_RECEIVE } from '../support/who-may-be-mailed'

/**
 * Who may be mailed is one rule (private.may_mail, beside server/waitlist/entry-status.ts), and
 * the sender asks it both when it claims a message and when it works out when to wake next. Walked
 * here: every status (and an address on no entry) against every kind of message, through the
 * running server and a real SMTP server. A message the claim refuses never keeps the server awake:
 * after `deliveries --retry` of a message whose entry bounced since, the server and its PostgreSQL
 * stay idle, as the CPU time they use (read from /proc) shows.
 */
const RETRIED = 'retried.since.bounced@example.com'

let mail: MailTestServer
// What the relay says to RETRIED: busy first (the invitation fails for good), then no such user.
let retriedReply: 450 | 550 = 450

beforeAll(async () => {
  mail = await startMailTestServer(
    // Retries 100 ms apart for at most 1.5 s: a busy mailbox fails the message within the test.
    { MAIL_PER_MINUTE: '0', MAIL_RETRY_BASE_MS: '100', MAIL_RETRY_FOR_MS: '1500' },
    { rcptReply: (address) => (address === RETRIED ? retriedReply : undefined) },
  )
})
afterAll(async () => {
  await mail?.close()
})

/** The server's and its PostgreSQL's CPU over `ms`, in milliseconds. */
async function cpuOver(ms: number): Promise<{ node: number; postgres: number }> {
  const postmaster = (await postmasterPid(mail.server.dataDir)) as number
  const node = mail.server.process.pid as number
  const before = { node: cpuMicros(node), postgres: clusterCpuMicros(postmaster) }
  await sleep(ms)
  return {
    node: (cpuMicros(node) - before.node) / 1000,
    postgres: (clusterCpuMicros(postmaster) - before.postgres) / 1000,
  }
}

async function messageStatuses(email: string): Promise<string[]> {
  const rows = await mail.database.db.query<{ status: string }>(
    `select o.status from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
      where w.email = $1 order by o.id`,
    [email],
  )
  return rows.map((row) => row.status)
}

const KINDS = ['confirmation', 'invitation', 'test'] as const
const WHO = ['unlisted', ...ENTRY_STATUSES] as const
const addressOf = (who: (typeof WHO)[number]) => `walk.${who}@example.com`

describe('who may be mailed', () => {
  it('is one rule, private.may_mail, over every status and kind', async () => {
    const rows = await mail.database.db.query<{ who: string; kind: string; may: boolean }>(
      `select coalesce(status, 'unlisted') as who, kind, private.may_mail(kind, status) as may
         from unnest($1::text[]) as status, unnest($2::text[]) as kind`,
      [[null, ...ENTRY_STATUSES], KINDS],
    )
    expect(rows).toHaveLength(WHO.length * KINDS.length)
    for (const { who, kind, may } of rows)
      expect(may, `${kind} to ${who}`).toBe(
        (MAY_RECEIVE[who as (typeof WHO)[number]] as readonly string[]).includes(kind),
      )
  })

  it('sends each message the rule allows and no other, and leaves the server idle with the rest pending', async () => {
    const { db } = mail.database
    const messages = await db.transaction(async (tx) => {
      const queued: { who: (typeof WHO)[number]; kind: string; id: string }[] = []
      for (const who of WHO) {
        const email = addressOf(who)
        const [entry] =
          who === 'unlisted'
            ? [undefined]
            : await tx.query<{ id: string }>(
                'insert into public.waitlist (email) values ($1) returning id::text',
                [email],
              )
        if (entry && who !== 'waiting')
          await tx.run('insert into private.entry_status (waitlist_id, status) values ($1::bigint, $2)', [
            entry.id,
            who,
          ])
        for (const kind of KINDS) {
          // An entry's message names it; a test names only its address (an unlisted one has no entry).
          if (kind !== 'test' && !entry) continue
          const [row] = await tx.query<{ id: string }>(
            `insert into private.mail_outbox (waitlist_id, kind, priority, message_domain, test_address)
             values ($1::bigint, $2, case when $2 = 'confirmation' then 0 else 1 end, 'tessel-labs.example', $3)
             returning id::text`,
            [kind === 'test' ? null : entry?.id, kind, kind === 'test' ? email : null],
          )
          queued.push({ who, kind, id: (row as { id: string }).id })
        }
      }
      await tx.query("select pg_notify('mail_outbox', '')")
      return queued
    })
    const statusOf = async (id: string) =>
      (
        await db.query<{ status: string }>('select status from private.mail_outbox where id = $1::bigint', [
          id,
        ])
      )[0]?.status
    const allowed = messages.filter(({ who, kind }) => (MAY_RECEIVE[who] as readonly string[]).includes(kind))
    for (const { id } of allowed) await expect.poll(() => statusOf(id), { timeout: 20_000 }).toBe('sent')
    for (const who of WHO)
      expect(mail.sink.countFor(addressOf(who)), who).toBe(
        allowed.filter((message) => message.who === who).length,
      )
    const refused = messages.filter((message) => !allowed.includes(message))
    expect(refused.length).toBeGreaterThan(0)
    await sleep(500)
    const idle = await cpuOver(3_000)
    for (const { id } of refused) expect(await statusOf(id)).toBe('pending')
    expect(idle.node + idle.postgres).toBeLessThan(150)
  })

  it('leaves the server idle after deliveries --retry of a message whose entry bounced since', async () => {
    expect(await insertStatus(mail.server, RETRIED)).toBe(201)
    expect((await runCli(mail.server.env, 'invite', RETRIED)).code).toBe(0)
    await expect.poll(() => messageStatuses(RETRIED), { timeout: 20_000 }).toEqual(['failed'])
    // The same address then refuses a new invitation for good: the entry is bounced.
    retriedReply = 550
    expect((await runCli(mail.server.env, 'invite', RETRIED, '--resend')).code).toBe(0)
    await expect.poll(() => entryStatus(mail.database.db, RETRIED), { timeout: 20_000 }).toBe('bounced')
    await sleep(500)
    const idle = await cpuOver(3_000)
    const retried = await runCli(mail.server.env, 'deliveries', '--retry')
    expect(retried.code).toBe(0)
    await sleep(500)
    const after = await cpuOver(3_000)
    console.log(
      `idle before --retry: ${JSON.stringify(idle)} ms; after: ${JSON.stringify(after)} ms (over 3 s)`,
    )
    // Spinning, the two took some 600 ms of these 3 s (a poll every 10 ms); idle, a few.
    expect(after.node + after.postgres).toBeLessThan(Math.max(150, 3 * (idle.node + idle.postgres)))
    expect(mail.sink.countFor(RETRIED)).toBe(0)
    // The rule refuses it now: --retry cancels it rather than queueing it for nobody.
    expect(await messageStatuses(RETRIED)).toEqual(['cancelled', 'bounced'])
  })
})
