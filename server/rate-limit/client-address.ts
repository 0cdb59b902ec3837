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
  return addressFrom(trustHeader ? c.req.header(trustHeader) : undefined, socketAddress(c))
}

/** clientAddress from its two sources: the trusted header's value (when one is named), the socket's peer. */
export function addressFrom(trustedValue: string | null | undefined, socket: string | undefined): string {
  const last = trustedValue?.split(',').at(-1)?.trim()
  return last || (socket ?? 'unknown')
}

/** The eight groups of an IPv6 address (a dotted IPv4 tail as the last two), lower-case, no leading zeros. */
function expandIPv6(address: string): string[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address)
  const hex = dotted
    ? address.slice(0, dotted.index) +
      [Number(dotted[1]) * 256 + Number(dotted[2]), Number(dotted[3]) * 256 + Number(dotted[4])]
        .map((group) => group.toString(16))
        .join(':')
    : address
  const [head = '', tail = ''] = hex.split('::')
  const left = head ? head.split(':') : []
  const right = hex.includes('::') && tail ? tail.split(':') : []
  const missing = 8 - left.length - right.length
  const groups = hex.includes('::') ? [...left, ...Array(missing).fill('0'), ...right] : left
  return groups.map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
}

/**
 * One spelling of one client's address, whatever its proxy wrote: a port after it dropped
 * (`10.0.0.9:40001`, `[2001:db8::1]:443`), brackets and an IPv6 zone too, and an IPv4-mapped IPv6
 * address (`::ffff:10.0.0.9`, `::ffff:a00:9`) read as the IPv4 address it is. Anything else as given.
 */
export function bareAddress(given: string): string {
  const value = given.trim()
  // The common case, on every write: a plain IPv4 address.
  if (isIPv4(value)) return value
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value)
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(value)
  const address = (bracketed?.[1] ?? withPort?.[1] ?? value).replace(/%.*$/, '')
  if (!isIPv6(address)) return address
  const groups = expandIPv6(address)
  if (groups.slice(0, 5).every((group) => group === '0') && groups[5] === 'ffff') {
    const [high, low] = groups.slice(6).map((group) => Number.parseInt(group, 16))
    return [(high ?? 0) >> 8, (high ?? 0) & 255, (low ?? 0) >> 8, (low ?? 0) & 255].join('.')
  }
  return address
}

// An IPv6 address with its zone is under 64 characters.
const MAX_KEY_LENGTH = 64

/**
 * The key one rate-limit bucket is kept under: the client's bare address (one spelling, above),
 * and for IPv6 its /64. An IPv6 host usually holds a whole /64, so a client could otherwise take a
 * fresh address (and a fresh bucket) for every request; a port or a mapped form, another spelling.
 */
export function rateLimitKey(given: string): string {
  const address = bareAddress(given)
  if (isIPv4(address)) return address
  if (isIPv6(address) && !address.includes('.')) return `${expandIPv6(address).slice(0, 4).join(':')}::/64`
  // Anything else came from a trusted header as sent: buckets and caches keep a fixed-size digest
  // of a long one, not the header (nothing a client sends decides memory, ADR 024).
  if (address.length > MAX_KEY_LENGTH) return `sha256:${hash('sha256', address.toLowerCase(), 'base64url')}`
  return address.toLowerCase()
}
