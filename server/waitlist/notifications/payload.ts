/** What a receiver gets for one signup. */
export interface SignupPayload {
  /** Standard Webhooks' suggested envelope: an event type, when it was sent, and the event's data. */
  type: 'waitlist.signup'
  timestamp: string
  data: { email: string; created_at: string }
  /** Slack incoming webhooks show `text` (mrkdwn, with &, < and > escaped). */
  text: string
  /** Discord webhooks show `content` (markdown escaped), and mention nobody. */
  content: string
  allowed_mentions: { parse: [] }
}

const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

// An address may hold *, _, ~, `, | or >, which Discord would read as formatting.
const discordEscape = (text: string) => text.replace(/[\\*_~`|>]/g, (char) => `\\${char}`)

/** The JSON body for one signup, readable as it is by Slack and Discord and parseable by anything else. */
export function signupPayload(email: string, createdAt: string, sentAt: Date): SignupPayload {
  const when = `${createdAt.slice(0, 16).replace('T', ' ')} UTC`
  return {
    type: 'waitlist.signup',
    timestamp: sentAt.toISOString(),
    data: { email, created_at: createdAt },
    text: `New waitlist signup: ${slackEscape(email)} (${when})`,
    content: `New waitlist signup: ${discordEscape(email)} (${when})`,
    allowed_mentions: { parse: [] },
  }
}
