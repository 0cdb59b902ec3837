import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../harness/waitlist-cli'
import { queueTestInvitation } from '../../server/waitlist/invite/invitations'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'

/**
 * A test send (`invite --test ADDRESS`) keeps its address, which is no entry's, only while it may
 * still go out: whatever becomes of it (sent, bounced, failed after its retries, cancelled), the
 * outbox forgets it. Through the running server and a real SMTP server that answers 550 to one
 * address and 450 to another until the retry window ends.
 */
const BOUNCES = 'gone.tester@example.com'
const WAITS = 'later.tester@example.com'
const ARRIVES = 'fine.tester@example.com'

let mail: MailTestServer
beforeAll(async () => {
  mail = await startMailTestServer(
    // Retries 100 ms apart, for at most 1.5 s: the 450s outlast the window within the test.
    { MAIL_PER_MINUTE: '0', MAIL_RETRY_BASE_MS: '100', MAIL_RETRY_FOR_MS: '1500', LOG_LEVEL: 'info' },
    { rcptReply: (address) => (address === BOUNCES ? 550 : address === WAITS ? 450 : undefined) },
  )
})
afterAll(async () => {
  await mail?.close()
})

interface TestRow {
  status: string
  address: string | null
}

async function testRow(id: string): Promise<TestRow | undefined> {
  const [row] = await mail.database.db.query<TestRow>(
    'select status, test_address as address from private.mail_outbox where id = $1::bigint',
    [id],
  )
  return row
}

/** Queues a test to `address` as the CLI does and waits until the server has settled it. */
async function settledTest(address: string): Promise<TestRow | undefined> {
  const sent = await runCli(mail.server.env, 'invite', '--test', address)
  expect(sent.stdout).toContain(`Queued a test of the invitation to ${address}`)
  const [row] = await mail.database.db.query<{ id: string }>(
    `select id::text as id from private.mail_outbox where kind = 'test' order by id desc limit 1`,
  )
  const id = row?.id ?? ''
  await expect.poll(async () => (await testRow(id))?.status, { timeout: 20_000 }).not.toBe('pending')
  return testRow(id)
}

describe('a test send forgets its address, whatever becomes of it', () => {
  it('sent', async () => {
    expect(await settledTest(ARRIVES)).toEqual({ status: 'sent', address: null })
    expect(mail.sink.countFor(ARRIVES)).toBe(1)
  })

  it('bounced (550)', async () => {
    expect(await settledTest(BOUNCES)).toEqual({ status: 'bounced', address: null })
  })

  it('failed once 450s outlast the retry window; deliveries --retry does not send it to nobody', async () => {
    expect(await settledTest(WAITS)).toEqual({ status: 'failed', address: null })
    expect((await runCli(mail.server.env, 'deliveries', '--retry')).code).toBe(0)
    const [row] = await mail.database.db.query<{ status: string }>(
      `select status from private.mail_outbox where kind = 'test' and status in ('failed', 'cancelled', 'pending')`,
    )
    expect(row).toEqual({ status: 'cancelled' })
  })

  it('cancelled, by whatever moves it: the database forgets it', async () => {
    const { db } = mail.database
    const id = await db.transaction(async (tx) => {
      const sent = await queueTestInvitation(tx, 'never.sent@example.com')
      if (!('queued' in sent)) throw new Error(sent.reason)
      const queued = sent.queued
      // Not due for an hour: the running server leaves it alone.
      await tx.run(
        `update private.mail_outbox set run_at = now() + interval '1 hour' where id = $1::bigint`,
        [queued],
      )
      return queued
    })
    expect(await testRow(id)).toEqual({ status: 'pending', address: 'never.sent@example.com' })
    await db.run(`update private.mail_outbox set status = 'cancelled' where id = $1::bigint`, [id])
    expect(await testRow(id)).toEqual({ status: 'cancelled', address: null })
    expect(mail.server.output()).not.toMatch(/\b(gone|later|fine)\.tester@/)
  })
})
