/**
 * Text made safe for HTML element content and double-quoted attributes. It lives here, not beside
 * nodemailer, so that the pages which use it do not load nodemailer into a server that sends no mail.
 */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

/** What one message says, already in the lab's words, for both parts. */
export interface MessageParts {
  subject: string
  greeting: string
  paragraphs: readonly string[]
  button: { label: string; url: string }
  /** A line set apart, e.g. the invite code. */
  code?: { label: string; value: string }
  signOff: string
  footer: string
  unsubscribe: { label: string; url: string }
  /** The person's own page: what the lab holds about the address, to download or erase. */
  yourData: { label: string; url: string }
}

// No colour is set on the text or the background: each client shows its own, light or dark, and the
// text stays readable in both. The button carries its own colours (white on the logo's green, 5:1),
// and muted text is a grey that reads on white and on near-black. Inline styles only: many clients
// drop <style>. No image, font or other remote resource: nothing is fetched when the message opens.
const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
const BODY = `margin:0;padding:0;font-family:${FONT};font-size:16px;line-height:1.5`
const WRAP = 'max-width:560px;margin:0 auto;padding:32px 24px'
const BUTTON =
  'display:inline-block;padding:12px 22px;border-radius:6px;background-color:#15803d;color:#ffffff;' +
  'font-weight:600;text-decoration:none'
const MUTED = 'color:#6b7280;font-size:13px'
const LINK = 'color:inherit;text-decoration:underline'

const paragraph = (text: string, style = 'margin:0 0 16px') => `<p style="${style}">${escapeHtml(text)}</p>`

/** The HTML part: one column, the button, the raw link under it, the footer with the unsubscribe link. */
export function messageHtml(parts: MessageParts): string {
  const { button, code, unsubscribe, yourData } = parts
  const url = escapeHtml(button.url)
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="supported-color-schemes" content="light dark">',
    `<title>${escapeHtml(parts.subject)}</title>`,
    '</head>',
    `<body style="${BODY}">`,
    `<div style="${WRAP}">`,
    paragraph(parts.greeting),
    ...parts.paragraphs.map((text) => paragraph(text)),
    `<p style="margin:24px 0"><a href="${url}" style="${BUTTON}">${escapeHtml(button.label)}</a></p>`,
    `<p style="margin:0 0 16px;${MUTED};word-break:break-all"><a href="${url}" style="${LINK}">${url}</a></p>`,
    code
      ? `<p style="margin:0 0 16px">${escapeHtml(code.label)}: <code style="font-size:14px;word-break:break-all">${escapeHtml(code.value)}</code></p>`
      : '',
    paragraph(parts.signOff, 'margin:24px 0 0'),
    `<hr style="margin:32px 0 16px;border:0;border-top:1px solid #9ca3af">`,
    `<p style="margin:0;${MUTED}">${escapeHtml(parts.footer)} ` +
      `<a href="${escapeHtml(unsubscribe.url)}" style="${LINK}">${escapeHtml(unsubscribe.label)}</a> · ` +
      `<a href="${escapeHtml(yourData.url)}" style="${LINK}">${escapeHtml(yourData.label)}</a></p>`,
    '</div>',
    '</body>',
    '</html>',
  ]
    .filter((line) => line !== '')
    .join('\n')
}

/** The text part: the same words, the links written out. */
export function messageText(parts: MessageParts): string {
  const lines = [
    parts.greeting,
    '',
    ...parts.paragraphs.flatMap((text) => [text, '']),
    `${parts.button.label}:`,
  ]
  lines.push(parts.button.url, '')
  if (parts.code) lines.push(`${parts.code.label}: ${parts.code.value}`, '')
  lines.push(
    parts.signOff,
    '',
    '--',
    parts.footer,
    `${parts.unsubscribe.label}: ${parts.unsubscribe.url}`,
    `${parts.yourData.label}: ${parts.yourData.url}`,
    '',
  )
  return lines.join('\n')
}
