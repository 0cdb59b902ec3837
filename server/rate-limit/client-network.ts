import { isIPv6 } from 'node:net'
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

// Four decimal octets, as node:net's isIPv4 takes them (no leading zero), each checked below.
const IPV4 = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/

/**
 * An IPv4 address as an unsigned 32-bit number, or undefined for anything else. It is on the
 * insert path: bit operations on small integers, no array and no floating point.
 */
function ipv4Value(address: string): number | undefined {
  const octets = IPV4.exec(address)
  if (!octets) return undefined
  let value = 0
  for (let index = 1; index <= 4; index++) {
    const octet = Number(octets[index])
    if (octet > 255) return undefined
    value = ((value << 8) | octet) >>> 0
  }
  return value
}

function ipv4Network(value: number, bits: number): string {
  const kept = bits === 0 ? 0 : (value & (0xffffffff << (32 - bits))) >>> 0
  return `${kept >>> 24}.${(kept >>> 16) & 255}.${(kept >>> 8) & 255}.${kept & 255}/${bits}`
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
  const slash = address.indexOf('/')
  const host = slash < 0 ? address : address.slice(0, slash)
  const given = slash < 0 ? Number.POSITIVE_INFINITY : Number(address.slice(slash + 1))
  const ipv4 = ipv4Value(host)
  if (ipv4 !== undefined) return ipv4Network(ipv4, Math.min(prefix.ipv4, given))
  const bare = host.replace(/%.*$/, '')
  if (isIPv6(bare)) return ipv6Network(bare.toLowerCase(), Math.min(prefix.ipv6, given))
  return undefined
}

/**
 * The network a signup from this client address is kept under: read as the rate limiter reads an
 * address (an IPv4-mapped IPv6 address is IPv4, brackets and a zone dropped), then cut to
 * SIGNUP_NETWORK. The limiter keys an IPv6 address by its /64 already, SIGNUP_NETWORK's own cut, so
 * that key is the network as it is: an IPv6 address is not parsed twice on the insert path.
 */
export function signupNetwork(address: string): string | undefined {
  const key = rateLimitKey(address)
  if (SIGNUP_NETWORK.ipv6 === 64 && key.endsWith('::/64')) return key
  return networkOf(key, SIGNUP_NETWORK)
}

/** A kept network as the logs, `deliveries` and the studio show it (SHOWN_NETWORK). */
export const shownNetwork = (network: string): string => networkOf(network, SHOWN_NETWORK) ?? network
