import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshDataDir } from '../../harness/data-dir'
import { deliveriesCommand } from '../../owner/cli/deliveries'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { OUTBOXES } from '../../server/outbox/outbox-queries'

/**
 * `deliveries --retry` wakes the pumps of both outboxes at once, the webhooks' as the mail's: a
 * failed delivery is sent again within the moment, not at the next poll.
 */
let opened: OpenedDatabase
let data: { dir: string; cleanup(): Promise<void> }

beforeAll(async () => {
  data = await freshDataDir()
  opened = await openDatabase({ dataDir: data.dir, purpose: 'test' })
})
afterAll(async () => {
  await opened?.close()
  await data?.cleanup()
})

describe('retrying failed deliveries', () => {
  it('sends the NOTIFY of each outbox it re-queues, webhooks and mail alike', async () => {
    const { db } = opened
    const [entry] = await db.query<{ id: string }>(
      "insert into public.waitlist (email) values ('retry.notify@example.com') returning id::text",
    )
    await db.query("insert into private.webhook_deliveries (waitlist_id, status) values ($1, 'failed')", [
      entry?.id,
    ])
    // An invitation goes only to an invited entry (private.may_mail): one still invited is retried.
    await db.query("insert into private.entry_status (waitlist_id, status) values ($1, 'invited')", [
      entry?.id,
    ])
    await db.query(
      `insert into private.mail_outbox (waitlist_id, kind, message_domain, status)
       values ($1, 'invitation', 'example.com', 'failed')`,
      [entry?.id],
    )
    const woken = { webhooks: 0, mail: 0 }
    const stops = await Promise.all(
      (['webhooks', 'mail'] as const).map((outbox) =>
        db.listen(OUTBOXES[outbox].channel, () => {
          woken[outbox] += 1
        }),
      ),
    )
    try {
      // listen() calls back once as it starts, for anything sent before; count from here.
      const before = { ...woken }
      const lines: string[] = []
      await deliveriesCommand(db, { retry: true }, (line) => lines.push(line))
      expect(lines.join('\n')).toMatch(/Re-queued 1 failed delivery and 1 failed message/)
      await expect.poll(() => woken.webhooks - before.webhooks, { timeout: 5_000 }).toBeGreaterThan(0)
      await expect.poll(() => woken.mail - before.mail, { timeout: 5_000 }).toBeGreaterThan(0)
    } finally {
      for (const stop of stops) await stop()
    }
  })
})
