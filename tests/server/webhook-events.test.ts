import { describe, expect } from 'vitest'
import { postWaitlist } from '../../harness/waitlist-api'
import { loadApiKeys } from '../../server/auth/api-keys'
import { ConfigError, loadServerEnv } from '../../server/boot/env'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { WEBHOOK_EVENTS } from '../../server/webhooks/delivery-queue'
import { CONFIRMING, mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import type { WebhookReceiver } from '../support/webhook-receiver'

/**
 * SIGNUP_WEBHOOK_EVENTS: with confirmation on, a lab's chat gets only the confirmed people, not
 * every typo and bot that signs up. Through the real server, a real webhook receiver and the
 * confirmation and unsubscribe links' POSTs: an event type not chosen is not even queued.
 */
// The server and its receiver start for the first test that asks for them.
const it = mailTest(
  { ...CONFIRMING, SIGNUP_WEBHOOK_EVENTS: 'entry.confirmed', LOG_LEVEL: 'info' },
  { webhook: true },
)

describe('SIGNUP_WEBHOOK_EVENTS at start-up', () => {
  it('takes a comma list of event types; unset, every one; an unknown name lists the valid ones', () => {
    expect(loadServerEnv({}).SIGNUP_WEBHOOK_EVENTS).toEqual([...WEBHOOK_EVENTS])
    expect(
      loadServerEnv({ SIGNUP_WEBHOOK_EVENTS: ' entry.confirmed, mail.paused ,' }).SIGNUP_WEBHOOK_EVENTS,
    ).toEqual(['entry.confirmed', 'mail.paused'])
    const bad = () => loadServerEnv({ SIGNUP_WEBHOOK_EVENTS: 'entry.confirmed, signup, entry.left' })
    expect(bad).toThrow(ConfigError)
    expect(bad).toThrow(
      'SIGNUP_WEBHOOK_EVENTS: "signup", "entry.left": no such event type; choose from waitlist.signup, ' +
        'entry.confirmed, entry.answered, invitation.sent, entry.joined, entry.unsubscribed, entry.bounced, ' +
        'entry.complained, entry.erased, mail.paused',
    )
    expect(() => loadServerEnv({ SIGNUP_WEBHOOK_EVENTS: ' , ' })).toThrow(/names no event type/)
  })
})

describe('SIGNUP_WEBHOOK_EVENTS=entry.confirmed, with confirmation on', () => {
  let receiver: WebhookReceiver
  let mail: MailTestServer
  // The file's helpers read these, set once from the fixtures.
  it.beforeAll(async ({ mail: started, receiver: listening }) => {
    mail = started
    receiver = listening
  })
  async function postLink(path: '/confirm' | '/unsubscribe', email: string): Promise<void> {
    const keys = linkKeys(
      (await loadApiKeys({ dataDir: mail.server.dataDir, databaseUrl: undefined })).secret,
    )
    const token = sealAddress(path === '/confirm' ? keys.confirm : keys.unsubscribe, email)
    const answer = await fetch(`${mail.server.url}${path}?t=${token}`, { method: 'POST' })
    expect(answer.status).toBe(200)
  }

  it('the chat gets the confirmed person only; the signups and the unsubscribe are never queued', async () => {
    const [person, bot] = ['real.person@example.com', 'bot.typo@example.com']
    for (const email of [person, bot]) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    await postLink('/confirm', person)
    await postLink('/unsubscribe', bot)
    await receiver.waitFor(() => receiver.delivered().length >= 1, 'the confirmation event delivered')
    const queued = await mail.database.db.query<{ event: string }>(
      'select event from private.webhook_deliveries order by id',
    )
    expect(queued).toEqual([{ event: 'entry.confirmed' }])
    expect(
      receiver.delivered().map(({ body }) => [body.type, (body.data as { email: string }).email]),
    ).toEqual([['entry.confirmed', person]])
    // SIGNUP_WEBHOOK_DETAILS unset: the address and its dates, no source and no answers.
    expect(Object.keys(receiver.delivered()[0]?.body.data as object)).toEqual([
      'email',
      'created_at',
      'occurred_at',
    ])
    expect(mail.server.output()).toContain(`Signup notifications go to ${new URL(receiver.url).origin}`)
    expect(mail.server.output()).toContain('only entry.confirmed')
  })
})
