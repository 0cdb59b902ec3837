import type { Webhook } from 'standardwebhooks'
import { maskEmails } from '../base/log'
import type { SendResult } from '../outbox/outbox-sender'

export interface WebhookTarget {
  url: string
  /** Signs each request (webhook-signature) when SIGNUP_WEBHOOK_SECRET is set. */
  signer: Webhook | undefined
}

// Enough of an error page to say what went wrong; a 10 MB answer is never read past its first chunk.
const BODY_PEEK_CHARS = 300
// Masked before it is cut, so the cut never leaves the start of an address in clear.
const BODY_READ_BYTES = 4096

/** The start of a response body as one short printable line, with any address masked. */
async function peekBody(response: Response): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  try {
    const { value } = await reader.read()
    const text = new TextDecoder().decode(value?.subarray(0, BODY_READ_BYTES) ?? new Uint8Array())
    return maskEmails(text.replace(/\p{Cc}+/gu, ' ').trim()).slice(0, BODY_PEEK_CHARS)
  } finally {
    // Drops the rest without reading it (and the connection with it).
    await reader.cancel().catch(() => {})
  }
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  // The pump's time limit aborts with its own words; the server stopping, with an AbortError.
  if (signal.aborted) {
    const reason = signal.reason as Error | undefined
    return reason?.name === 'AbortError' ? 'abandoned: server stopping' : String(reason?.message ?? reason)
  }
  // fetch reports "fetch failed" and keeps the reason (ECONNREFUSED, a malformed answer…) as its cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const reason = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error)
  return maskEmails(`request failed: ${reason}`)
}

/**
 * POSTs one Standard Webhooks message: a 2xx is sent; anything else, a redirect (never followed:
 * the receiver's address is the one configured), no answer before `signal` aborts, or no valid
 * HTTP answer at all, is retried, with a short reason for last_error.
 */
export async function sendWebhook(
  target: WebhookTarget,
  messageId: string,
  body: string,
  signal: AbortSignal,
): Promise<SendResult> {
  const sentAt = new Date()
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'lab-site-signup-webhook',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
  }
  if (target.signer) headers['webhook-signature'] = target.signer.sign(messageId, sentAt, body)
  try {
    const response = await fetch(target.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal,
    })
    if (response.status >= 200 && response.status < 300) {
      await response.body?.cancel().catch(() => {}) // whatever it says, and however long
      return { status: 'sent', note: `HTTP ${response.status}` }
    }
    const snippet = await peekBody(response)
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''
    return { status: 'retry', error: `HTTP ${response.status}${redirect}${snippet ? `: ${snippet}` : ''}` }
  } catch (error) {
    return { status: 'retry', error: describeFailure(error, signal) }
  }
}
