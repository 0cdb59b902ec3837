import { describe, expect } from 'vitest'
import type { OpenedDatabase } from '../../server/db/open-database'
import { insertStatus } from '../reliability/support'
import { CONFIRMING, mailTest } from '../support/fixtures'

/**
 * The review found `550 no such user jane.doe'<email:…>` in private.mail_outbox.last_error and in
 * the log: the mask stopped at ' / = ? &. Here an SMTP server and a webhook receiver both quote the
 * refused address back, and neither the stored error texts nor the server's log keep any of it.
 */
const EMAIL = "jane.doe'o/x=y?z&w@example.com"
// Every run of the local part between the characters the old mask stopped at.
const PIECES = ['jane.doe', "jane.doe'o", 'x=y', 'z&w', 'o/x=y?z&w@example.com']

const it = mailTest(
  { ...CONFIRMING, SIGNUP_WEBHOOK_RETRY_BASE_MS: '200', LOG_LEVEL: 'info' },
  {
    sink: { rcptReply: (to) => ({ code: 550, text: `no such user ${to}` }) },
    webhook: {
      kind: 'status',
      status: 500,
      body: JSON.stringify({ error: `unknown subscriber ${EMAIL}, try again` }),
    },
  },
)

async function lastError(
  database: OpenedDatabase,
  table: 'private.mail_outbox' | 'private.webhook_deliveries',
): Promise<string | null> {
  const [row] = await database.db.query<{ last_error: string | null }>(
    `select last_error from ${table} where last_error is not null limit 1`,
  )
  return row?.last_error ?? null
}

function expectMasked(text: string, where: string): void {
  expect(text, where).toContain('<email:')
  for (const piece of PIECES) expect(text, `${where} keeps "${piece}"`).not.toContain(piece)
}

describe("stored error texts and the log, for an address with ' / = ? & in its local part", () => {
  it('the SMTP 550 in mail_outbox.last_error and the webhook answer in webhook_deliveries.last_error are masked', async ({
    server,
    sink,
    database,
  }) => {
    expect(await insertStatus(server, EMAIL)).toBe(201)
    await sink.waitFor(() => sink.refused.includes(EMAIL), 'the SMTP server refused the confirmation')
    await expect.poll(() => lastError(database, 'private.mail_outbox'), { timeout: 15_000 }).not.toBeNull()
    await expect
      .poll(() => lastError(database, 'private.webhook_deliveries'), { timeout: 15_000 })
      .not.toBeNull()
    const mail = (await lastError(database, 'private.mail_outbox')) ?? ''
    const webhook = (await lastError(database, 'private.webhook_deliveries')) ?? ''
    console.log(`mail_outbox.last_error: ${mail}\nwebhook_deliveries.last_error: ${webhook}`)
    expectMasked(mail, 'mail_outbox.last_error')
    expectMasked(webhook, 'webhook_deliveries.last_error')
    await expect.poll(() => server.output(), { timeout: 15_000 }).toMatch(/bounced: .*<email:/)
    for (const piece of PIECES) expect(server.output()).not.toContain(piece)
  })
})
