import { isIPv4, isIPv6 } from 'node:net'
import { rateLimitKey } from './client-address'

/** How many leading bits of an address name its network, in each family. */
export interface NetworkPrefix {
  readonly ipv4: number
  readonly ipv6: number
}

/**
 * The network a signup is kept under (public.waitlist.signup_network, whose check holds this cut):
 * an IPv4 /24, and the /64 an IPv6 host usually holds whole, as the rate limiter's key does. Send
 * health counts confirmation bounces per such network (ADR 083).
 */
export const SIGNUP_NETWORK: NetworkPrefix = { ipv4: 24, ipv6: 64 }

/**
 * How a network is shown wherever people read it (the logs, `deliveries`, the studio), and how a
 * record kept for years should keep it: an IPv6 /48 is a site, where a /64 can be one household.
 */
export const SHOWN_NETWORK: NetworkPrefix = { ipv4: 24, ipv6: 48 }

const IPV4_BITS = 32

function ipv4Network(address: string, bits: number): string {
  const value = address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0)
  const kept = bits === 0 ? 0 : Math.floor(value / 2 ** (IPV4_BITS - bits)) * 2 ** (IPV4_BITS - bits)
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(kept / 2 ** shift) % 256)
  return `${octets.join('.')}/${bits}`
}

/** An IPv6 address's eight 16-bit groups (a dotted IPv4 tail read as the last two). */
function ipv6Groups(address: string): number[] {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address)
  const hex = tail
    ? `${address.slice(0, tail.index)}${((Number(tail[1]) << 8) | Number(tail[2])).toString(16)}:${((Number(tail[3]) << 8) | Number(tail[4])).toString(16)}`
    : address
  const [head = '', rest = ''] = hex.split('::')
  const left = head ? head.split(':') : []
  const right = hex.includes('::') && rest ? rest.split(':') : []
  const groups = hex.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left
  return groups.map((group) => Number.parseInt(group, 16))
}

/** Groups as IPv6 text is written (RFC 5952): lower case, the longest run of zero groups as `::`. */
function ipv6Text(groups: readonly number[]): string {
  let best = { at: -1, length: 1 }
  for (let at = 0; at < groups.length; at++) {
    let length = 0
    while (groups[at + length] === 0) length++
    if (length > best.length) best = { at, length }
  }
  const text = groups.map((group) => group.toString(16))
  if (best.at < 0) return text.join(':')
  return `${text.slice(0, best.at).join(':')}::${text.slice(best.at + best.length).join(':')}`
}

function ipv6Network(address: string, bits: number): string {
  const groups = ipv6Groups(address).map((group, index) => {
    const kept = Math.min(16, Math.max(0, bits - 16 * index))
    return kept === 0 ? 0 : group & (0xffff << (16 - kept)) & 0xffff
  })
  return `${ipv6Text(groups)}/${bits}`
}

/**
 * The network holding `address` (an address, or a network as CIDR text, which is cut no wider than
 * it is), cut to `prefix`, as CIDR text PostgreSQL's cidr type takes; undefined for anything that
 * is not an IP address (a trusted header's odd value, `unknown`).
 */
export function networkOf(address: string, prefix: NetworkPrefix): string | undefined {
  const [host = '', length] = address.replace(/%.*$/, '').split('/')
  const given = length === undefined ? Number.POSITIVE_INFINITY : Number(length)
  if (isIPv4(host)) return ipv4Network(host, Math.min(prefix.ipv4, given))
  if (isIPv6(host)) return ipv6Network(host.toLowerCase(), Math.min(prefix.ipv6, given))
  return undefined
}

/**
 * The network a signup from this client address is kept under: read as the rate limiter reads an
 * address (an IPv4-mapped IPv6 address is IPv4, brackets and a zone dropped), then cut to SIGNUP_NETWORK.
 */
export const signupNetwork = (address: string): string | undefined =>
  networkOf(rateLimitKey(address), SIGNUP_NETWORK)

/** A kept network as the logs, `deliveries` and the studio show it (SHOWN_NETWORK). */
export const shownNetwork = (network: string): string => networkOf(network, SHOWN_NETWORK) ?? network
