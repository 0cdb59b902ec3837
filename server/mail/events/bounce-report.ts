import PostalMime from 'postal-mime'
import { type MailEventType, outboxUuidOf } from './mail-event'

/** One recipient a bounce message reports on. */
export interface ReportedRecipient {
  email: string
  type: MailEventType
  detail: string
  /** Our Message-ID, when the report quotes the message it is about. */
  messageId?: string
}

/** A per-recipient field of a delivery-status block (RFC 3464 section 2.3), value after its type. */
function fieldOf(block: string, name: string): string {
  const match = new RegExp(`^${name}:\\s*(?:[a-z0-9-]+;\\s*)?(.*)$`, 'im').exec(block)
  return match?.[1]?.trim() ?? ''
}

/** The recipients of a message/delivery-status part: failed ones (5.x.x hard, else soft), delayed ones soft. */
function deliveryStatus(report: string): ReportedRecipient[] {
  const recipients: ReportedRecipient[] = []
  // The first block is about the reporting MTA; each later one about one recipient.
  for (const block of report
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .slice(1)) {
    const email = fieldOf(block, 'Final-Recipient') || fieldOf(block, 'Original-Recipient')
    const action = fieldOf(block, 'Action').toLowerCase()
    const status = fieldOf(block, 'Status')
    if (!email || (action !== 'failed' && action !== 'delayed')) continue
    const type = action === 'failed' && status.startsWith('5') ? 'hard' : 'soft'
    recipients.push({ email, type, detail: fieldOf(block, 'Diagnostic-Code') || `${action} ${status}` })
  }
  return recipients
}

/** Our Message-ID anywhere in the report (the quoted message or its headers), if there is one. */
function quotedMessageId(raw: string): string | undefined {
  for (const match of raw.matchAll(/^Message-ID:\s*(<[^>\s]+>)/gim))
    if (outboxUuidOf(match[1])) return match[1]
  return undefined
}

// A bounce report nests a few MIME levels (report, returned message, its alternatives); postal-mime
// would go to 256, and throws past its limit.
const MAX_MIME_DEPTH = 16

/**
 * What a bounce message piped from a self-run MTA says: an RFC 3464 delivery status report
 * (Postfix's and Exim's), an RFC 5965 feedback report (a complaint), or, for a bounce in no
 * standard form, the returned message itself: a hard bounce of the message whose Message-ID it
 * quotes. Parsed with postal-mime; nothing in it is fetched or followed. Undefined when postal-mime
 * cannot read it (nested past MAX_MIME_DEPTH, or malformed): the sender's mistake, not the server's.
 */
export async function readBounceReport(raw: Buffer): Promise<ReportedRecipient[] | undefined> {
  let mail: Awaited<ReturnType<typeof PostalMime.parse>>
  try {
    mail = await PostalMime.parse(raw, { attachmentEncoding: 'utf8', maxNestingDepth: MAX_MIME_DEPTH })
  } catch {
    return undefined
  }
  const text = raw.toString('latin1')
  const messageId = quotedMessageId(text)
  const parts = mail.attachments.map((part) => ({
    type: part.mimeType.toLowerCase(),
    content: String(part.content),
  }))
  const status = parts.find((part) => part.type === 'message/delivery-status')
  if (status) return deliveryStatus(status.content).map((recipient) => ({ ...recipient, messageId }))
  const feedback = parts.find((part) => part.type === 'message/feedback-report')
  if (feedback) {
    const email = fieldOf(feedback.content, 'Original-Rcpt-To')
    return email || messageId ? [{ email, type: 'complaint', detail: 'feedback report', messageId }] : []
  }
  return messageId
    ? [{ email: '', type: 'hard', detail: 'a returned message (no delivery status report)', messageId }]
    : []
}
