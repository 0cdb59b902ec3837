import { hash } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'
import type { Context } from 'hono'

/** The socket's peer address, when the request came through Node's HTTP server. */
function socketAddress(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming
  return incoming?.socket?.remoteAddress
}

/**
 * The address a request comes from. A proxy header is believed only when the operator names it
 * (TRUST_PROXY_HEADER); a list such as X-Forwarded-For is read from the right, the entry our own
 * proxy appended, because everything left of it is whatever the client chose to send.
 */
export function clientAddress(c: Context, trustHeader: string | undefined): string {
  if (trustHeader) {
    const value = c.req.header(trustHeader)
    const last = value?.split(',').at(-1)?.trim()
    if (last) return last
  }
  return socketAddress(c) ?? 'unknown'
}

function expandIPv6(address: string): string[] {
  const [head = '', tail = ''] = address.split('::')
  const left = head ? head.split(':') : []
  const right = address.includes('::') && tail ? tail.split(':') : []
  const missing = 8 - left.length - right.length
  const groups = address.includes('::') ? [...left, ...Array(missing).fill('0'), ...right] : left
  return groups.map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
}

// An IPv6 address with its zone is under 64 characters.
const MAX_KEY_LENGTH = 64

/**
 * The key one rate-limit bucket is kept under. An IPv6 host usually holds a whole /64, so a
 * client could otherwise take a fresh address (and a fresh bucket) for every request.
 */
export function rateLimitKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped?.[1]) return mapped[1]
  if (isIPv4(address)) return address
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (isIPv6(bare) && !bare.includes('.')) return `${expandIPv6(bare).slice(0, 4).join(':')}::/64`
  // Anything else came from a trusted header as sent: buckets and caches keep a fixed-size digest
  // of a long one, not the header (nothing a client sends decides memory, ADR 024).
  if (address.length > MAX_KEY_LENGTH) return `sha256:${hash('sha256', address.toLowerCase(), 'base64url')}`
  return address.toLowerCase()
}
