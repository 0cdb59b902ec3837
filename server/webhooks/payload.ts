import type { WebhookEvent } from './delivery-queue'

/** What a receiver gets for one event. */
export interface EventPayload {
  /** Standard Webhooks' suggested envelope: an event type, when it was sent, and the event's data. */
  type: WebhookEvent
  timestamp: string
  /**
   * The entry's address and signup time; `occurred_at` for every event but the signup itself.
   * mail.paused is about no entry: its data is `occurred_at` and `reason` alone. entry.erased
   * has no signup time: the entry is gone.
   */
  data: { email?: string; created_at?: string; occurred_at?: string; reason?: string }
  /** Slack incoming webhooks show `text` (mrkdwn: the address as inline code, &, < and > escaped). */
  text: string
  /** Discord webhooks show `content` (markdown escaped), and mention nobody. */
  content: string
  allowed_mentions: { parse: [] }
}

// The three characters Slack's formatting reads as markup, escaped as Slack documents.
const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

// Slack's mrkdwn has no escape character: *, _, ~ and ` format wherever they pair up, and an address
// may hold all four (`a_b_@x.co` shows in italics). Inline code is shown as it is written, so text a
// stranger chose (an address) goes between backticks; a backtick of its own, which would end the
// code, is shown as ˋ (U+02CB). &, < and > stay escaped inside the code, as Slack asks.
const slackVerbatim = (text: string) => `\`${slackEscape(text.replaceAll('`', '\u02cb'))}\``

// An address may hold *, _, ~, `, | or >, which Discord would read as formatting.
const discordEscape = (text: string) => text.replace(/[\\*_~`|>]/g, (char) => `\\${char}`)

// What a person reading the chat sees before the address.
const HEADLINES: Record<WebhookEvent, string> = {
  'waitlist.signup': 'New waitlist signup',
  'entry.confirmed': 'Waitlist address confirmed',
  'invitation.sent': 'Beta invitation sent',
  'entry.joined': 'Joined the beta',
  'entry.unsubscribed': 'Unsubscribed from the waitlist',
  'entry.bounced': 'Waitlist address bounced',
  'entry.complained': 'Waitlist address reported the mail as spam',
  'entry.erased': 'Erased from the waitlist: erase its copies too',
  'mail.paused': 'Sending paused',
}

/** The JSON body for one event, readable as it is by Slack and Discord and parseable by anything else. */
export function eventPayload(
  event: WebhookEvent,
  entry: { email: string; createdAt: string; occurredAt: string; detail?: string | null },
  sentAt: Date,
): EventPayload {
  const when = `${entry.occurredAt.slice(0, 16).replace('T', ' ')} UTC`
  const headline = HEADLINES[event]
  const paused = event === 'mail.paused'
  const data: EventPayload['data'] = paused
    ? { occurred_at: entry.occurredAt, reason: entry.detail ?? '' }
    : { email: entry.email, created_at: entry.createdAt }
  // An erased entry's signup time went with it.
  if (!entry.createdAt) delete data.created_at
  if (event !== 'waitlist.signup' && !paused) data.occurred_at = entry.occurredAt
  // What follows the headline: the address, or why sending paused (no address in it).
  const about = paused ? (entry.detail ?? '') : entry.email
  return {
    type: event,
    timestamp: sentAt.toISOString(),
    data,
    text: `${headline}: ${paused ? slackEscape(about) : slackVerbatim(about)} (${when})`,
    content: `${headline}: ${discordEscape(about)} (${when})`,
    allowed_mentions: { parse: [] },
  }
}

/** The JSON body for one signup (waitlist.signup). */
export function signupPayload(email: string, createdAt: string, sentAt: Date): EventPayload {
  return eventPayload('waitlist.signup', { email, createdAt, occurredAt: createdAt }, sentAt)
}
