import { describe, expect, it } from 'vitest'
import { postWaitlist } from '../../harness/waitlist-api'
import {
  networkOf,
  SHOWN_NETWORK,
  SIGNUP_NETWORK,
  shownNetwork,
  signupNetwork,
} from '../../server/rate-limit/client-network'
import { fileServer } from '../support/file-server'
import { requestAccessOverMcp } from '../support/mcp-raw'

/**
 * The network a signup is kept under (issue 48, item 4): the rate limiter's reading of the client
 * address, cut to an IPv4 /24 or an IPv6 /64; shown cut to a /48. Then each door to the list keeps
 * it, from a trusted X-Forwarded-For, and no client can write it.
 */
describe('networkOf', () => {
  it('cuts IPv4 to /24 and IPv6 to /64 for a signup, as the rate limiter reads an address', () => {
    const kept: [string, string | undefined][] = [
      ['203.0.113.7', '203.0.113.0/24'],
      ['::ffff:203.0.113.7', '203.0.113.0/24'],
      // A proxy's port, and the hex-mapped form, are the same client, as for the rate limit.
      ['10.0.0.9:40001', '10.0.0.0/24'],
      ['::ffff:a00:9', '10.0.0.0/24'],
      ['[2001:db8:1:2::1]:443', '2001:db8:1:2::/64'],
      ['2001:0db8:0001:0002:ffff:1:2:3', '2001:db8:1:2::/64'],
      ['[2001:db8:1:2::1]', '2001:db8:1:2::/64'],
      // The limiter's own /64 key, as it writes it; PostgreSQL's cidr reads it as fe80::/64 and ::/64.
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['::1', '0:0:0:0::/64'],
      ['256.1.1.1', undefined],
      ['010.1.1.1', undefined],
      ['unknown', undefined],
      ['x'.repeat(500), undefined],
    ]
    for (const [address, network] of kept) expect(signupNetwork(address), address).toBe(network)
    expect(networkOf('0:0:0:0::/64', SIGNUP_NETWORK)).toBe('::/64')
  })

  it('shows a kept network cut to /48 (IPv6) and never wider than it was kept', () => {
    expect(shownNetwork('2001:db8:1:2::/64')).toBe('2001:db8:1::/48')
    expect(shownNetwork('203.0.113.0/24')).toBe('203.0.113.0/24')
    const whole = { ipv4: 32, ipv6: 128 }
    const cut: [string, { ipv4: number; ipv6: number }, string][] = [
      ['10.1.2.3', { ipv4: 8, ipv6: 32 }, '10.0.0.0/8'],
      ['2001:db8:ffff::/40', SHOWN_NETWORK, '2001:db8:ff00::/40'],
      ['64:ff9b::192.0.2.33', SIGNUP_NETWORK, '64:ff9b::/64'],
      ['1:0:0:1:0:0:0:1', whole, '1:0:0:1::1/128'],
      ['1:0:0:1:0:0:1:1', whole, '1::1:0:0:1:1/128'],
    ]
    for (const [address, prefixes, network] of cut)
      expect(networkOf(address, prefixes), address).toBe(network)
  })
})

describe('each door keeps the network of the signup', () => {
  const live = fileServer({ env: { TRUST_PROXY_HEADER: 'X-Forwarded-For' }, database: true })

  const networkKept = async (email: string) => {
    const [row] = await live.database.db.query<{ network: string | null }>(
      'select signup_network::text as network from public.waitlist where email = $1',
      [email],
    )
    return row?.network
  }

  it('the REST insert, the no-script form and the MCP tool; a client cannot name one', async () => {
    const rest = await postWaitlist(
      live.server,
      { email: 'rest@example.com' },
      { 'X-Forwarded-For': '198.51.100.23' },
    )
    expect(rest.status).toBe(201)
    const form = await fetch(`${live.server.url}/`, {
      method: 'POST',
      headers: { 'X-Forwarded-For': '2001:db8:7:8::1' },
      body: new URLSearchParams({ email: 'form@example.com' }),
      redirect: 'manual',
    })
    expect(form.headers.get('location')).toBe('/?waitlist=submitted')
    expect(await requestAccessOverMcp(live.server.url, 'mcp@example.com')).toContain('"status":"submitted"')
    expect(await networkKept('rest@example.com')).toBe('198.51.100.0/24')
    expect(await networkKept('form@example.com')).toBe('2001:db8:7:8::/64')
    // No header through the trusted proxy here: the socket's own loopback address.
    expect(await networkKept('mcp@example.com')).toBe('127.0.0.0/24')

    const named = await postWaitlist(live.server, {
      email: 'named@example.com',
      signup_network: '10.0.0.0/24',
    })
    expect(named.status, 'not a column anon may write').toBe(401)
    expect(await networkKept('named@example.com')).toBeUndefined()
  })
})
