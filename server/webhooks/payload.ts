import { signupQuestions } from '../../contract/site-config'
import type { WebhookEvent } from './delivery-queue'

/** What a receiver gets for one event. */
export interface EventPayload {
  /** Standard Webhooks' suggested envelope: an event type, when it was sent, and the event's data. */
  type: WebhookEvent
  timestamp: string
  /**
   * The entry's address and signup time; `occurred_at` for every event but the signup itself.
   * mail.paused is about no entry: its data is `occurred_at` and `reason` alone. entry.erased
   * has no signup time: the entry is gone, and so are its details. With SIGNUP_WEBHOOK_DETAILS,
   * an entry's `source` (null: none kept) and kept `answers` ({} when none).
   */
  data: {
    email?: string
    created_at?: string
    occurred_at?: string
    reason?: string
    source?: string | null
    answers?: Record<string, string>
  }
  /** Slack incoming webhooks show `text` (mrkdwn: the address as inline code, &, < and > escaped). */
  text: string
  /** Discord webhooks show `content` (markdown escaped), and mention nobody. */
  content: string
  allowed_mentions: { parse: [] }
}

/** One event's entry, as the delivery queue claims it; `source` and `answers` only when chosen. */
export interface EventEntry {
  email: string
  createdAt: string
  occurredAt: string
  detail?: string | null
  source?: string | null
  answers?: Record<string, string>
}

// The three characters Slack's formatting reads as markup, escaped as Slack documents.
const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

// Slack's mrkdwn has no escape character: *, _, ~ and ` format wherever they pair up, and an address
// may hold all four (`a_b_@x.co` shows in italics). Inline code is shown as it is written, so text a
// stranger chose (an address, a source, an answer) goes between backticks; a backtick of its own,
// which would end the code, is shown as ˋ (U+02CB). &, < and > stay escaped inside the code, as
// Slack asks.
const slackVerbatim = (text: string) => `\`${slackEscape(text.replaceAll('`', '\u02cb'))}\``

// An address may hold *, _, ~, `, | or >, which Discord would read as formatting; an answer may also
// hold < (a mention's or a channel's markup) and [ ] (a masked link).
const discordEscape = (text: string) => text.replace(/[\\*_~`|<>[\]]/g, (char) => `\\${char}`)

// What a person reading the chat sees before the address.
const HEADLINES: Record<WebhookEvent, string> = {
  'waitlist.signup': 'New waitlist signup',
  'entry.confirmed': 'Waitlist address confirmed',
  'entry.answered': 'Answered',
  'invitation.sent': 'Beta invitation sent',
  'entry.joined': 'Joined the beta',
  'entry.unsubscribed': 'Unsubscribed from the waitlist',
  'entry.bounced': 'Waitlist address bounced',
  'entry.complained': 'Waitlist address reported the mail as spam',
  'entry.erased': 'Erased from the waitlist: erase its copies too',
  'mail.paused': 'Sending paused',
}

// A long text answer (what they would use it for) is cut in the chat's line; the data has it whole.
const ANSWER_SHOWN = 60
const shown = (answer: string) =>
  answer.length > ANSWER_SHOWN ? `${answer.slice(0, ANSWER_SHOWN - 1).trimEnd()}…` : answer

/** The answers' values in the questions' order, as the chat shows them: `Research, DeepMind`. */
function answerLine(answers: Record<string, string> | undefined): string {
  const values = signupQuestions.flatMap(({ id }) => (answers?.[id] ? [shown(answers[id])] : []))
  return values.join(', ')
}

type Escape = (text: string) => string

/**
 * The chat's line about an entry: `ada@lab.org (Research, DeepMind) answered, from hn`, or
 * `Waitlist address confirmed: ada@lab.org (Research, DeepMind), from hn`, each stranger's text
 * escaped as the chat needs. Without details, the address alone, as before.
 */
function entryLine(event: WebhookEvent, entry: EventEntry, shield: Escape, when: string): string {
  const answers = answerLine(entry.answers)
  const who = `${shield(entry.email)}${answers ? ` (${shield(answers)})` : ''}`
  const from = entry.source ? `, from ${shield(entry.source)}` : ''
  if (event === 'entry.answered') return `${who} answered${from} (${when})`
  return `${HEADLINES[event]}: ${who}${from} (${when})`
}

/** The JSON body for one event, readable as it is by Slack and Discord and parseable by anything else. */
export function eventPayload(event: WebhookEvent, given: EventEntry, sentAt: Date): EventPayload {
  // An erased entry's details went with it: its address alone, for the lab to erase its copies.
  const { source: _source, answers: _answers, ...bare } = given
  const entry: EventEntry = event === 'entry.erased' ? bare : given
  const when = `${entry.occurredAt.slice(0, 16).replace('T', ' ')} UTC`
  const paused = event === 'mail.paused'
  const data: EventPayload['data'] = paused
    ? { occurred_at: entry.occurredAt, reason: entry.detail ?? '' }
    : { email: entry.email, created_at: entry.createdAt }
  // An erased entry's signup time went with it.
  if (!entry.createdAt) delete data.created_at
  if (event !== 'waitlist.signup' && !paused) data.occurred_at = entry.occurredAt
  if (!paused && entry.source !== undefined) data.source = entry.source
  if (!paused && entry.answers !== undefined) data.answers = entry.answers
  // Why sending paused says no address; it is the server's own words, escaped for Slack's markup.
  const reason = entry.detail ?? ''
  return {
    type: event,
    timestamp: sentAt.toISOString(),
    data,
    text: paused
      ? `${HEADLINES[event]}: ${slackEscape(reason)} (${when})`
      : entryLine(event, entry, slackVerbatim, when),
    content: paused
      ? `${HEADLINES[event]}: ${discordEscape(reason)} (${when})`
      : entryLine(event, entry, discordEscape, when),
    allowed_mentions: { parse: [] },
  }
}

/** The JSON body for one signup (waitlist.signup). */
export function signupPayload(email: string, createdAt: string, sentAt: Date): EventPayload {
  return eventPayload('waitlist.signup', { email, createdAt, occurredAt: createdAt }, sentAt)
}
