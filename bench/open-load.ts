import { Agent, request } from 'node:http'
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64'
import { mersenne } from 'pure-rand/generator/mersenne'
import type { LoadResult } from './http-load'

/**
 * An open load, as visitors arrive: requests at random moments (a Poisson process of the given
 * rate, the same moments for every server given the same seed), each sent when its moment comes
 * whether or not the earlier ones were answered, on keep-alive connections. A request's latency is
 * from its moment to its answer's last byte, so a request that waited for a free connection, or for
 * this process, counts the wait. The percentiles are of the requests themselves.
 *
 * Why not autocannon's rate (http-load.ts): it lets each connection send its share of a second back
 * to back when the second starts, so a second's load came in its first quarter (pages 1,000 a
 * second arrived at 4,000-5,000 a second, then nothing), and its correction for coordinated
 * omission takes 1/rate seconds as milliseconds, rounded up to 1: each answer then counts once per
 * millisecond it took, so one slow moment outweighed everything else. ADR 103.
 */
export interface OpenLoadOptions {
  url: string
  ratePerSecond: number
  durationSeconds: number
  /** Most connections open at once; a request finding all of them busy waits (and that counts). */
  connections: number
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  /** The nth request's own headers, on top of `headers` (a client address per request, say). */
  headersOf?: (n: number) => Record<string, string>
  /** The nth request's body (unique e-mails, say). */
  bodyOf?: (n: number) => string
  /** The arrival moments' seed: the same seed, the same moments. */
  seed?: number
}

/** The moments, in ms from the start, of a Poisson process of `rate` a second over `seconds`. */
export function arrivals(rate: number, seconds: number, seed: number): number[] {
  const random = mersenne(seed)
  const moments: number[] = []
  for (let at = 0; ; ) {
    at += (-Math.log(1 - uniformFloat64(random)) / rate) * 1000
    if (at >= seconds * 1000) return moments
    moments.push(at)
  }
}

/** The value under which `share` of the sorted values lie (nearest rank). */
export function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number
}

export async function runOpenLoad(options: OpenLoadOptions): Promise<LoadResult> {
  const url = new URL(options.url)
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  const moments = arrivals(options.ratePerSecond, options.durationSeconds, options.seed ?? 1)
  const latencies: number[] = []
  const tally = { ok: 0, non2xx: 0, errors: 0 }
  const send = (n: number, due: number) =>
    new Promise<void>((resolve) => {
      const body = options.bodyOf?.(n)
      const headers = { ...options.headers, ...options.headersOf?.(n) }
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
      const sent = request(url, { method: options.method ?? 'GET', agent, headers }, (response) => {
        response.resume()
        response.once('end', () => {
          const status = response.statusCode ?? 0
          if (status >= 200 && status < 300) {
            tally.ok += 1
            latencies.push(performance.now() - due)
          } else tally.non2xx += 1
          resolve()
        })
      })
      sent.once('error', () => {
        tally.errors += 1
        resolve()
      })
      sent.setTimeout(TIMEOUT_MS, () => sent.destroy(new Error('no answer in time')))
      sent.end(body)
    })
  const inFlight: Promise<void>[] = []
  const start = performance.now()
  let n = 0
  while (n < moments.length) {
    const now = performance.now() - start
    for (; n < moments.length && (moments[n] as number) <= now; n++) {
      inFlight.push(send(n, start + (moments[n] as number)))
    }
    if (n < moments.length) await sleep(Math.max(0, (moments[n] as number) - (performance.now() - start)))
  }
  await Promise.all(inFlight)
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return {
    requestsPerSecond: tally.ok / options.durationSeconds,
    // A tenth of a millisecond: at this load the p99s are a few milliseconds, where 3 against 4 is 33%.
    p99Ms: Math.round(percentile(latencies, 0.99) * 10) / 10,
    ...tally,
  }
}

const TIMEOUT_MS = 10_000
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
