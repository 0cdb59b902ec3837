import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { openDatabase } from '../../server/db/open-database'
import { queueEvent } from '../../server/webhooks/webhook-events'
import { insertStatus } from '../reliability/support'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'

/** The server's log names each webhook by its event: an invitation's is not a "Signup notification". */
let receiver: WebhookReceiver
let server: TestServer

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  server = await startTestServer({ env: { SIGNUP_WEBHOOK_URL: receiver.url } })
})
afterAll(async () => {
  await server?.cleanup()
  await receiver?.close()
})

describe('webhook deliveries in the log', () => {
  it('a signup reads "Signup notification", an invitation.sent reads "Webhook invitation.sent"', async () => {
    expect(await insertStatus(server, 'log.names@example.com')).toBe(201)
    await receiver.waitFor(() => receiver.delivered().length === 1, 'the signup delivered')
    const opened = await openDatabase({ dataDir: server.dataDir, purpose: 'test', besideServer: true })
    try {
      const [entry] = await opened.db.query<{ id: string }>(
        "select id::text from public.waitlist where email = 'log.names@example.com'",
      )
      await queueEvent(opened.db, entry?.id ?? '', 'invitation.sent')
    } finally {
      await opened.close()
    }
    await receiver.waitFor(() => receiver.delivered().length === 2, 'the invitation.sent event delivered')
    await expect
      .poll(() => server.output())
      .toMatch(/Webhook invitation\.sent msg_\S+ delivered \(attempt 1, HTTP 204\)/)
    const lines = server.output().split('\n')
    expect(lines.filter((line) => /Signup notification msg_\S+ delivered/.test(line))).toHaveLength(1)
    expect(
      lines.filter((line) => line.includes('Signup notification') && line.includes('invitation')),
    ).toEqual([])
  })
})
