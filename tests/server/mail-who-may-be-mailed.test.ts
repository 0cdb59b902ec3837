import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clusterCpuMicros, cpuMicros } from '../../bench/process-cpu'
import { postmasterPid } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { insertStatus } from '../reliability/support'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'

/**
 * Who may be mailed is one rule (private.may_mail, beside server/waitlist/entry-status.ts), and
 * the sender asks it both when it claims a message and when it works out when to wake next. A
 * message the claim refuses therefore never keeps the server awake: after `deliveries --retry`
 * of a message whose entry bounced since, the server and its PostgreSQL stay idle, as the CPU
 * time they use (read from /proc) shows.
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

describe('who may be mailed', () => {
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
  })
})
