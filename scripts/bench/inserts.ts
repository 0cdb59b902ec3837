import type { Database } from '../../server/db/database'
import { insertStatement } from '../../server/rest/table-sql'
import { BROWSER_HEADERS, type LoadResult, runLoad } from './http-load'
import { percentile } from './stats'

export interface InsertRates {
  http: LoadResult
  raw: DirectRate
  /** The API's own statement (role settings and its insert, one round trip) without HTTP and the key check. */
  rawAsApi: DirectRate
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

export interface DirectRate {
  insertsPerSecond: number
  p99Ms: number
  count: number
}

type InsertOne = (db: Database, email: string) => Promise<unknown>

/** A plain one-row insert, as the table's owner: the raw rate of the database. */
export const plainInsert: InsertOne = (db, email) =>
  db.query('insert into public.waitlist (email) values ($1)', [email])

/** What the API runs for one row, in process: the PostgREST-style insert as anon, in one round trip. */
export const apiInsert: InsertOne = (db, email) =>
  db.runAsRole({ role: 'anon' }, insertStatement('waitlist', ['email'], [{ email }], undefined))

// Unique e-mails across every run in the process (the table refuses duplicates).
let next = 0

/** Inserts sent straight to the database by `clients` concurrent loops for `seconds`. */
export async function rawInserts(
  db: Database,
  clients: number,
  seconds: number,
  insert: InsertOne = plainInsert,
): Promise<DirectRate> {
  const latencies: number[] = []
  const stopAt = performance.now() + seconds * 1000
  const loop = async (client: number) => {
    while (performance.now() < stopAt) {
      const started = performance.now()
      await insert(db, `raw-${client}-${next++}@example.com`)
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
