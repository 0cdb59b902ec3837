import { existsSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { Hono } from 'hono'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { type ApiKeys, loadApiKeys } from '../../server/auth/api-keys'
import { createLogger } from '../../server/base/log'
import type { Database } from '../../server/db/database'
import { MAX_PREPARED_STATEMENTS, openPostgres } from '../../server/db/postgres-driver'
import { createApp } from '../../server/http/app'
import { loadSchemaCache } from '../../server/http/rest/table-sql'
import { anonKiB, pool, tally } from '../reliability/support'
import { stubSite } from '../support/stub-site'

// A full collection before each reading of the heap, so what is measured is what is kept.
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void
const heapMiB = () => {
  collectGarbage()
  return process.memoryUsage().heapUsed / 2 ** 20
}

/**
 * The app in this process on a database of the test cluster: Node's heap is this process's own,
 * and the database backends are the pool's, found by their database in pg_stat_activity.
 */
let db: Database
let owner: pg.Client
let app: Hono
let keys: ApiKeys

beforeAll(async () => {
  const url = await sharedPostgresUrl()
  db = await openPostgres(url, 2)
  owner = new pg.Client({ connectionString: url })
  await owner.connect()
  keys = await loadApiKeys({
    jwtSecret: 'a test secret of forty characters or more',
    dataDir: '/nonexistent',
    databaseUrl: undefined,
  })
  const schema = await loadSchemaCache(db)
  app = createApp({ db, keys, schema, site: stubSite, log: createLogger('silent') })
})
afterAll(async () => {
  await owner?.end()
  await db?.close()
  await stopBackends()
})

/** The private memory of the backends serving the app's pool, in MiB. */
async function backendsMiB(): Promise<number> {
  const { rows } = await owner.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  )
  const kib = rows.reduce((sum, { pid }) => sum + (existsSync(`/proc/${pid}`) ? anonKiB(pid) : 0), 0)
  return kib / 1024
}

const COLUMNS = ['id', 'email', 'created_at']
/** Every list of the table's columns `length` names long, repeats allowed: 3^length of them. */
const lists = (length: number): string[] =>
  length === 0 ? [''] : lists(length - 1).flatMap((head) => COLUMNS.map((c) => (head ? `${head},${c}` : c)))

async function insertReturning(list: string): Promise<number> {
  const body = JSON.stringify({ email: 'flood@example.com' })
  const response = await app.request(`/rest/v1/waitlist?select=${list}`, {
    method: 'POST',
    headers: {
      apikey: keys.anonKey,
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      Prefer: 'return=representation',
    },
    body,
  })
  await response.arrayBuffer()
  return response.status
}

describe('request-built SQL', () => {
  it('300 distinct ?select= lists on inserts leave Node and the database backends flat', async () => {
    // Warm-up, so that what is compiled and cached once is in place, with lists unlike the flood's.
    await pool(
      2,
      lists(9)
        .slice(0, 50)
        .map((list) => () => insertReturning(list)),
    )
    // Each unprepared text costs a backend nothing kept; 300 prepared ones would keep about 6 MiB.
    const flood = [...lists(2), ...lists(3), ...lists(4), ...lists(5), ...lists(6)].slice(0, 300)
    expect(new Set(flood).size).toBe(300)
    const before = { node: heapMiB(), backends: await backendsMiB() }
    const statuses = await pool(
      2,
      flood.map((list) => () => insertReturning(list)),
    )
    const grown = { node: heapMiB() - before.node, backends: (await backendsMiB()) - before.backends }
    console.log(`select flood: ${JSON.stringify(tally(statuses))}; grown (MiB): ${JSON.stringify(grown)}`)
    // Each text reaches Postgres, unprepared, and is refused there: anon may not read what it wrote.
    expect(tally(statuses)).toEqual({ 401: 300 })
    expect(grown.backends).toBeLessThan(2)
    expect(grown.node).toBeLessThan(1)
  })

  it(`names at most ${MAX_PREPARED_STATEMENTS} texts, whatever callers mark as prepared`, async () => {
    const single = await openPostgres(await sharedPostgresUrl(), 1)
    try {
      for (let i = 0; i < MAX_PREPARED_STATEMENTS + 50; i++)
        await single.runAsRole(
          { role: 'anon' },
          { sql: `select ${i} as n, $1::text`, params: ['x'], prepare: true },
        )
      const [row] = await single.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements')
      expect(row?.n).toBeLessThanOrEqual(MAX_PREPARED_STATEMENTS)
    } finally {
      await single.close()
    }
  })
})
