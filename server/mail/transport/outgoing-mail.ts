/** One message as the transport sends it; From is the transport's own (MAIL_FROM). */
export interface OutgoingMail {
  to: string
  subject: string
  text: string
  html: string
  /** `<left@domain>`: the caller keeps it the same on every attempt of one message. */
  messageId: string
  /** Further headers, such as List-Unsubscribe. */
  headers: Record<string, string>
}

/** Text made safe for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}
