import type { Webhook } from 'standardwebhooks'
import { maskEmails } from '../../boot/log'

export interface WebhookTarget {
  url: string
  /** Signs each request (webhook-signature) when SIGNUP_WEBHOOK_SECRET is set. */
  signer: Webhook | undefined
  timeoutMs: number
}

export type SendResult = { delivered: true; status: number } | { delivered: false; error: string }

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

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'abandoned: server stopping'
  }
  // fetch reports "fetch failed" and keeps the reason (ECONNREFUSED, a malformed answer…) as its cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const reason = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error)
  return maskEmails(`request failed: ${reason}`)
}

/**
 * POSTs one Standard Webhooks message: a 2xx is delivered; anything else, a redirect (never
 * followed: the receiver's address is the one configured), no answer in time, or no valid HTTP
 * answer at all, is a failure with a short reason for last_error.
 */
export async function sendWebhook(
  target: WebhookTarget,
  messageId: string,
  body: string,
  stop?: AbortSignal,
): Promise<SendResult> {
  const sentAt = new Date()
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'lab-site-signup-webhook',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
  }
  if (target.signer) headers['webhook-signature'] = target.signer.sign(messageId, sentAt, body)
  const timeout = AbortSignal.timeout(target.timeoutMs)
  try {
    const response = await fetch(target.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
    })
    if (response.status >= 200 && response.status < 300) {
      await response.body?.cancel().catch(() => {}) // whatever it says, and however long
      return { delivered: true, status: response.status }
    }
    const snippet = await peekBody(response)
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''
    return {
      delivered: false,
      error: `HTTP ${response.status}${redirect}${snippet ? `: ${snippet}` : ''}`,
    }
  } catch (error) {
    return { delivered: false, error: describeFailure(error, target.timeoutMs) }
  }
}
