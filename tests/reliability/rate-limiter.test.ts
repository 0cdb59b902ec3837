import { describe, expect, it } from 'vitest'
import { rateLimitKey } from '../../server/rate-limit/client-address'
import { MemoryStore } from '../../server/rate-limit/memory-store'

describe('MemoryStore', () => {
  it('allows the burst, then one write per 60/perMinute seconds, with the wait it reports', () => {
    let now = 0
    const limiter = new MemoryStore({ perMinute: 10, burst: 5, now: () => now })
    expect(Array.from({ length: 6 }, () => limiter.take('a', 1))).toEqual([0, 0, 0, 0, 0, 6])
    now += 5_999
    expect(limiter.take('a', 1)).toBe(1)
    now += 6_000
    expect(limiter.take('a', 1)).toBe(0)
    expect(limiter.take('b', 1)).toBe(0)
  })

  it('takes the further rows all or none after the request’s token, which stays when they are refused', () => {
    let now = 0
    const limiter = new MemoryStore({ perMinute: 10, burst: 5, now: () => now })
    expect(limiter.burst).toBe(5)
    // An array of 3 rows: the request's token, then 2 more.
    expect(limiter.take('a', 3)).toBe(0)
    // 2 left: the request's token is taken, its 2 further rows are refused (1 short: 6 s).
    expect(limiter.take('a', 3)).toBe(6)
    expect(limiter.take('a', 1)).toBe(0)
    expect(limiter.take('a', 1)).toBe(6)
    // No token for the request itself: nothing is taken, the wait is for that one.
    expect(limiter.take('a', 4)).toBe(6)
    now += 18_000
    expect(limiter.take('a', 3)).toBe(0)
  })

  it('keeps memory bounded: at most maxClients buckets however many addresses write', () => {
    let now = 0
    const limiter = new MemoryStore({ perMinute: 10, burst: 5, maxClients: 100, now: () => now })
    for (let i = 0; i < 10_000; i++) {
      now += 1
      limiter.take(`client-${i}`, 1)
      expect(limiter.size).toBeLessThanOrEqual(100)
    }
    // The most recent clients are still limited: eviction drops the least recently seen first.
    for (let i = 0; i < 4; i++) limiter.take('client-9999', 1)
    expect(limiter.take('client-9999', 1)).toBeGreaterThan(0)
  })

  it('forgets a client whose bucket has refilled before anyone still limited', () => {
    let now = 0
    const limiter = new MemoryStore({ perMinute: 60, burst: 1, maxClients: 2, now: () => now })
    limiter.take('idle', 1)
    now += 1_000 // idle's bucket is full again
    limiter.take('busy', 1)
    limiter.take('new', 1)
    expect(limiter.size).toBe(2)
    expect(limiter.take('busy', 1)).toBeGreaterThan(0)
  })
})

describe('rateLimitKey', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as IPv4, and IPv6 by /64', () => {
    expect(rateLimitKey('203.0.113.7')).toBe('203.0.113.7')
    expect(rateLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(rateLimitKey('2001:db8:1:2::1')).toBe(rateLimitKey('2001:0db8:0001:0002:ffff:1:2:3'))
    expect(rateLimitKey('2001:db8:1:2::1')).not.toBe(rateLimitKey('2001:db8:1:3::1'))
    expect(rateLimitKey('::1')).toBe('0:0:0:0::/64')
  })
})
