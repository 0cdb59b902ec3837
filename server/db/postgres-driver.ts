import pg from 'pg'
import { inCopyTransaction } from './copy-transaction'
import {
  type Database,
  isPgError,
  type Queryable,
  type RequestSettings,
  roleSettings,
  type Statement,
  type StatementResult,
} from './database'
import type { JwtClaims } from './jwt-claims'
import { wrap } from './pg-queryable'
import { listen } from './postgres-listen'

/**
 * The most texts one pool ever names. Every connection keeps each statement it prepared until it
 * closes, and so does node-postgres, so a name is never reused for another text: past the bound, a
 * text simply runs unnamed (parsed each time). The server's own texts are a few dozen at most; the
 * bound only stops a mistake (a request-built text marked `prepare`) from growing without end. Not
 * lru-cache: an evicted text would be named again and prepared anew on every connection, which
 * still holds the old one, so eviction would grow each connection's memory; past the bound, refusing
 * a name is the only bounded answer.
 */
export const MAX_PREPARED_STATEMENTS = 200

/**
 * Turns statements into queries as node-postgres takes them: named, so each connection parses and
 * plans them once. The names belong to one pool, as its connections do, so one pool's texts never
 * use up another's bound.
 */
function queryMaker(prepare: boolean) {
  const names = new Map<string, string>()
  return (statement: Statement): pg.QueryConfig => {
    const values = [...statement.params]
    if (!statement.prepare || !prepare) return { text: statement.sql, values }
    let name = names.get(statement.sql)
    if (!name) {
      if (names.size >= MAX_PREPARED_STATEMENTS) return { text: statement.sql, values }
      name = `lab_${names.size + 1}`
      names.set(statement.sql, name)
    }
    return { name, text: statement.sql, values }
  }
}

/**
 * `?pgbouncer=true` on DATABASE_URL (Prisma's convention, which Supabase's docs give) marks a
 * transaction-mode pooler such as Supabase's Supavisor on port 6543: its transactions may land on
 * other server connections, so named prepared statements are off. The flag is not a Postgres one.
 */
function readPoolerFlag(connectionString: string): { url: string; prepare: boolean } {
  if (!/[?&]pgbouncer=/i.test(connectionString)) return { url: connectionString, prepare: true }
  const url = new URL(connectionString)
  const pooled = url.searchParams.get('pgbouncer') === 'true'
  url.searchParams.delete('pgbouncer')
  return { url: url.toString(), prepare: !pooled }
}

/**
 * Sends queries on a pipelining client and settles once every one has answered: with their
 * results, or with the first failure in the order sent (later ones only say "transaction
 * aborted"). They leave in one write: the socket is corked while they are queued, where
 * node-postgres would write each one as it is queued, which costs system calls here and wake-ups
 * for the Postgres backend. Callbacks rather than node-postgres's promises: two fewer per query.
 */
function pipelined(client: pg.PoolClient, queries: (string | pg.QueryConfig)[]): Promise<pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    const results: pg.QueryResult[] = []
    const failures: unknown[] = []
    let pending = queries.length
    const answered = (index: number) => (error: Error | null, result: pg.QueryResult) => {
      if (error) failures[index] = error
      else results[index] = result
      if (--pending > 0) return
      const failure = failures.find((item) => item !== undefined)
      if (failure) reject(failure)
      else resolve(results)
    }
    // The pool's clients are pg.Client instances; their socket is typed there, not on PoolClient.
    const socket = (client as unknown as pg.Client).connection.stream
    socket.cork()
    try {
      for (const [index, sent] of queries.entries()) client.query(sent, answered(index))
    } finally {
      socket.uncork()
    }
  })
}

type MakeQuery = (statement: Statement) => pg.QueryConfig

/** A transaction on one of the pool's clients, rolled back on a failure. */
async function inTransaction<T>(
  pool: pg.Pool,
  setUp: pg.QueryConfig | undefined,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    if (setUp) await client.query(setUp)
    const result = await fn(wrap(client))
    await client.query('commit')
    return result
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

/** Database.runAsRole: begin, the role settings, the statement and commit, in one round trip. */
async function runAsRole<Row>(
  pool: pg.Pool,
  query: MakeQuery,
  [claims, statement, request]: [JwtClaims, Statement, RequestSettings | undefined],
): Promise<StatementResult<Row>> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    const sent = query(statement)
    // If the statement fails, Postgres skips to its Sync and the commit answers ROLLBACK.
    const queries = ['begin', query(roleSettings(claims, request)), sent, 'commit']
    const results = await pipelined(client, queries).catch((failure: unknown) => {
      // Without a SQLSTATE the connection itself failed: do not hand it to the next request.
      if (!isPgError(failure)) broken = failure as Error
      throw failure
    })
    const result = results[queries.indexOf(sent)]
    return { rows: result?.rows as never, affected: result?.rowCount ?? 0 }
  } finally {
    client.release(broken)
  }
}

/** Database.warmConnections: every connection opened, the statement run on each and rolled back. */
async function warmConnections(pool: pg.Pool, size: number, statements: pg.QueryConfig[]): Promise<number> {
  const clients = await Promise.all(Array.from({ length: size }, () => pool.connect()))
  await Promise.all(
    clients.map(async (client) => {
      // A statement refused (a constraint, a grant) still warmed what it reached; nothing is kept.
      const broken = await pipelined(client, ['begin', ...statements, 'rollback']).then(
        () => undefined,
        (failure: unknown) => (isPgError(failure) ? undefined : (failure as Error)),
      )
      client.release(broken)
    }),
  )
  return clients.length
}

/**
 * Any Postgres by URL: the embedded cluster and DATABASE_URL (a managed one when the lab outgrows
 * one machine) go through this same code. Clients pipeline, so queries sent without awaiting share
 * one round trip, each with its own Sync, in order. The pool keeps the connections it opened (`min`):
 * warmed before the server listens, they are still warm when its visitors come (ADR 111).
 */
export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const { url, prepare } = readPoolerFlag(connectionString)
  const pool = new pg.Pool({ connectionString: url, max: poolSize, min: poolSize, pipeline: true })
  const query = queryMaker(prepare)
  // A client losing its connection (the database restarting) must not take the server down: its
  // queries fail on their own, and the pool opens a new connection for the next ones.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  await pool.query('select 1') // fail at start-up, not on the first visitor
  return {
    ...wrap(pool),
    transaction: (fn) => inTransaction(pool, undefined, fn),
    asRole: (claims, fn, request) => inTransaction(pool, query(roleSettings(claims, request)), fn),
    runAsRole: (claims, statement, request) => runAsRole(pool, query, [claims, statement, request]),
    copyTransaction: (fn) => inCopyTransaction(url, fn),
    warmConnections: (claims, statement) =>
      warmConnections(pool, poolSize, [query(roleSettings(claims)), query(statement)]),
    listen: (channel, onNotify) => listen(url, channel, onNotify),
    close: () => pool.end(),
  }
}
