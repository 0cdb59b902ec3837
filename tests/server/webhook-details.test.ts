import { describe, expect } from 'vitest'
import { postWaitlist } from '../../harness/waitlist-api'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { CONFIRMING, mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { requestAccessOverMcp } from '../support/mcp-raw'
import type { WebhookReceiver } from '../support/webhook-receiver'

/**
 * Webhooks that tell the chat who (issue 51, item 6): with SIGNUP_WEBHOOK_DETAILS=source,answers
 * every event about an entry carries its source and the answers the person kept (never an agent's
 * proposed ones), and keeping answers on the confirmation page sends entry.answered, its Slack and
 * Discord lines naming them. Through the real server, its confirmation links' POSTs, /mcp, and a
 * real HTTP receiver.
 */
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'
const ADA = 'ada@deepmind-lab.org'
const AGENT_SIGNUP = 'proposed.only@example.org'

const it = mailTest(
  { ...CONFIRMING, SIGNUP_WEBHOOK_DETAILS: 'source,answers', LOG_LEVEL: 'info' },
  { webhook: true },
)

/** A confirmation link's POST for `email`, or the answers' POST on that link with `answers`. */
async function postLink(
  mail: MailTestServer,
  email: string,
  answers?: Record<string, string>,
): Promise<void> {
  const token = sealAddress(linkKeys(mail.server.secret).confirm, email)
  const path = answers ? '/confirm/answers' : '/confirm'
  const body = answers ? new URLSearchParams(answers) : undefined
  expect((await fetch(`${mail.server.url}${path}?t=${token}`, { method: 'POST', body })).status).toBe(200)
}

type Delivered = { type: string; data: Record<string, unknown>; text: string; content: string }

/** The event of `type` the receiver got about `email`, once it arrives. */
async function eventOf(receiver: WebhookReceiver, type: string, email: string): Promise<Delivered> {
  const find = () =>
    receiver
      .delivered()
      .map(({ body }) => body as unknown as Delivered)
      .find((body) => body.type === type && body.data.email === email)
  await receiver.waitFor(() => find() !== undefined, `${type} for ${email}`)
  return find() as Delivered
}

describe('SIGNUP_WEBHOOK_DETAILS=source,answers', () => {
  it('entry.answered: the kept answers and the source, in the data and in the chat’s line', async ({
    mail,
    receiver,
  }) => {
    const signedUp = await postWaitlist(
      mail.server,
      { email: ADA },
      { 'user-agent': CHROME, referer: `${mail.server.url}/?ref=hn` },
    )
    expect(signedUp.status).toBe(201)
    const signup = await eventOf(receiver, 'waitlist.signup', ADA)
    expect(signup.data).toMatchObject({ email: ADA, source: 'hn', answers: expect.any(Object) })
    await postLink(mail, ADA)
    expect((await eventOf(receiver, 'entry.confirmed', ADA)).data).toMatchObject({ source: 'hn' })
    await postLink(mail, ADA, { role: 'Research', organisation: 'DeepMind', use_case: '' })
    const answered = await eventOf(receiver, 'entry.answered', ADA)
    expect(answered.data).toEqual({
      email: ADA,
      created_at: expect.stringMatching(/Z$/),
      occurred_at: expect.stringMatching(/Z$/),
      source: 'hn',
      answers: { role: 'Research', organisation: 'DeepMind' },
    })
    expect(answered.text).toMatch(
      /^`ada@deepmind-lab\.org` \(`Research, DeepMind`\) answered, from `hn` \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/,
    )
    expect(answered.content).toMatch(/^ada@deepmind-lab\.org \(Research, DeepMind\) answered, from hn \(/)
    expect(mail.server.output()).toContain("with each entry's source and answers")
  })

  it('never carries an agent’s proposed answers, only what the person kept', async ({ mail, receiver }) => {
    await requestAccessOverMcp(mail.server.url, AGENT_SIGNUP, {
      role: 'Product',
      organisation: 'Planted Inc',
    })
    await postLink(mail, AGENT_SIGNUP)
    const confirmed = await eventOf(receiver, 'entry.confirmed', AGENT_SIGNUP)
    expect(confirmed.data).toMatchObject({ source: 'mcp', answers: {} })
    expect(JSON.stringify(confirmed)).not.toContain('Planted')
    expect(confirmed.text).toMatch(
      /^Waitlist address confirmed: `proposed\.only@example\.org`, from `mcp` \(/,
    )
  })

  it('skipping the questions (nothing kept) sends no entry.answered', async ({ mail, receiver }) => {
    const skipper = 'skips@example.org'
    expect((await postWaitlist(mail.server, { email: skipper })).status).toBe(201)
    await postLink(mail, skipper)
    await postLink(mail, skipper, { role: '', organisation: '' })
    await eventOf(receiver, 'entry.confirmed', skipper)
    const queued = await mail.database.db.query<{ event: string }>(
      `select d.event from private.webhook_deliveries d join public.waitlist w on w.id = d.waitlist_id
        where w.email = $1 order by d.id`,
      [skipper],
    )
    expect(queued.map((row) => row.event)).toEqual(['waitlist.signup', 'entry.confirmed'])
  })
})
