import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { arrivals, percentile, runOpenLoad } from '../../bench/open-load'

// The launch spike's yardstick (bench/launch-spike.ts, ADR 103): visitors at random moments, at
// the rate asked, the same moments for both servers, and the wait for a connection counted.
describe('the open load', () => {
  it('arrives at random moments at the rate asked, the same moments for the same seed', () => {
    const moments = arrivals(1000, 20, 1)
    expect(moments.length).toBeGreaterThan(19_400)
    expect(moments.length).toBeLessThan(20_600)
    expect(arrivals(1000, 20, 1)).toEqual(moments)
    expect(arrivals(1000, 20, 2)).not.toEqual(moments)
    // Spread over the whole run, each quarter of a second as busy as any other (autocannon's rate
    // put a second's requests in its first quarter).
    const byQuarter = [0, 1, 2, 3].map(
      (quarter) => moments.filter((at) => Math.floor((at % 1000) / 250) === quarter).length,
    )
    for (const count of byQuarter) expect(count / moments.length).toBeCloseTo(0.25, 1)
    // Poisson: as many gaps above the mean as a exponential distribution leaves (e^-1 of them).
    const gaps = moments.slice(1).map((at, index) => at - (moments[index] as number))
    expect(gaps.filter((gap) => gap > 1).length / gaps.length).toBeCloseTo(Math.exp(-1), 1)
  })

  it('takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1)
    expect(percentile(values, 0.99)).toBe(99)
    expect(percentile(values, 0.5)).toBe(50)
    expect(percentile([7], 0.99)).toBe(7)
    expect(percentile([], 0.99)).toBe(0)
  })

  it('counts from the moment a request was due, waits for a busy connection included', async () => {
    // 50 ms an answer on one connection, asked 40 times a second: requests queue behind each other.
    const server = createServer((request, response) => {
      request.resume()
      setTimeout(() => response.writeHead(request.method === 'POST' ? 409 : 200).end('ok'), 50)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    try {
      const queued = await runOpenLoad({ url, ratePerSecond: 40, durationSeconds: 0.5, connections: 1 })
      expect(queued.ok).toBeGreaterThan(12)
      expect(queued.non2xx + queued.errors).toBe(0)
      // Each waits for those before it, so the last ones took about half a second, not 50 ms.
      expect(queued.p99Ms).toBeGreaterThan(300)

      const spread = await runOpenLoad({ url, ratePerSecond: 40, durationSeconds: 0.5, connections: 50 })
      expect(spread.p99Ms).toBeGreaterThanOrEqual(50)
      expect(spread.p99Ms).toBeLessThan(500)

      const refused = await runOpenLoad({
        url,
        method: 'POST',
        ratePerSecond: 20,
        durationSeconds: 0.3,
        connections: 10,
        bodyOf: (n) => `{"n":${n}}`,
      })
      expect(refused.ok).toBe(0)
      expect(refused.non2xx).toBeGreaterThan(1)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
