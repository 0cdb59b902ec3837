import type { Database } from '../../server/db/database'
import { BROWSER_HEADERS, type LoadResult, runLoad } from './http-load'
import { percentile } from './stats'

export interface InsertRates {
  http: LoadResult
  raw: { insertsPerSecond: number; p99Ms: number; count: number }
  /** http / raw. */
  ratio: number
}

/** The page's one call, as supabase-js sends it, through HTTP, the key check, the role switch and the insert. */
export function httpInserts(
  url: string,
  anonKey: string,
  clients: number,
  seconds: number,
): Promise<LoadResult> {
  return runLoad({
    url: `${url}/rest/v1/waitlist`,
    method: 'POST',
    connections: clients,
    durationSeconds: seconds,
    headers: {
      ...BROWSER_HEADERS,
      apikey: anonKey,
      authorization: `Bearer ${anonKey}`,
      'content-type': 'application/json',
      'content-profile': 'public',
      prefer: 'return=minimal',
    },
    body: '{"email":"bench-[<id>]@example.com"}',
  })
}

/** The same insert sent straight to the database by `clients` concurrent loops, as its owner. */
export async function rawInserts(db: Database, clients: number, seconds: number) {
  const latencies: number[] = []
  const stopAt = performance.now() + seconds * 1000
  let next = 0
  const loop = async (client: number) => {
    while (performance.now() < stopAt) {
      const started = performance.now()
      await db.query('insert into public.waitlist (email) values ($1)', [
        `raw-${client}-${next++}@example.com`,
      ])
      latencies.push(performance.now() - started)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, (_, client) => loop(client)))
  const elapsed = (performance.now() - started) / 1000
  return {
    insertsPerSecond: latencies.length / elapsed,
    p99Ms: percentile(latencies, 99),
    count: latencies.length,
  }
}
