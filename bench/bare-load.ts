import { createReadStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { from } from 'pg-copy-streams'
import { startTestServer } from '../harness/test-server'
import { runningClusterUrl } from '../server/db/embedded/embedded-cluster'
import { ENTRY_COLUMNS } from '../server/waitlist/admin/entry-columns'

/**
 * The yardstick for `import`: the same rows, in the same kind of empty database, added by one
 * INSERT … SELECT into the same table, its indexes and its triggers (the outbox trigger told to
 * skip, as import tells it), nothing else. The file is read into an unlogged table first, untimed:
 * what is timed is the load itself, which import cannot do with less.
 */
export function timeBareLoad(file: string): Promise<number> {
  return timeBareStatement(
    file,
    ENTRY_COLUMNS.map((column) => column.name),
    `insert into public.waitlist (email, created_at, source)
     select email, created_at::timestamptz, nullif(source, '') from bare_rows`,
  )
}

/**
 * The bare load's mechanism, for any file and statement: the file's `columns` (as text) into the
 * unlogged table bare_rows, untimed, then `statement` timed in one transaction, as an import runs.
 */
export async function timeBareStatement(
  file: string,
  columns: readonly string[],
  statement: string,
): Promise<number> {
  const server = await startTestServer({ env: { LOG_LEVEL: 'error' }, bundled: true })
  const client = new pg.Client({ connectionString: await runningClusterUrl(server.dataDir) })
  try {
    await client.connect()
    await client.query(
      `create unlogged table bare_rows (${columns.map((name) => `${name} text`).join(', ')})`,
    )
    const copy = client.query(from('copy bare_rows from stdin with (format csv, header true)'))
    await pipeline(createReadStream(file), copy)
    await client.query('vacuum analyze bare_rows')
    const started = performance.now()
    await client.query('begin')
    await client.query("set local waitlist.importing = 'on'")
    await client.query(statement)
    await client.query('commit')
    return performance.now() - started
  } finally {
    await client.end().catch(() => {})
    await server.cleanup()
  }
}
