import pg from 'pg'
import { type Database, type Queryable, roleScript, roleSettings } from './database'
import { listen } from './postgres-listen'

function wrap(target: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query(sql, params) {
      return (await target.query(sql, params as unknown[])).rows
    },
    async run(sql, params) {
      const result = await target.query(sql, params as unknown[])
      return { rows: result.rows, affected: result.rowCount ?? 0 }
    },
    async exec(sql) {
      await target.query(sql)
    },
  }
}

/** Any Postgres reachable by URL (a managed one when the lab outgrows one machine). */
export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: poolSize })
  // An idle client losing its connection must not take the server down; the next query reconnects.
  pool.on('error', () => {})

  async function inTransaction<T>(
    setUp: ((client: pg.PoolClient) => Promise<unknown>) | undefined,
    fn: (tx: Queryable) => Promise<T>,
  ) {
    const client = await pool.connect()
    try {
      await client.query('begin')
      if (setUp) await setUp(client)
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

  await pool.query('select 1') // fail at start-up, not on the first visitor
  return {
    kind: 'postgres',
    ...wrap(pool),
    transaction: (fn) => inTransaction(undefined, fn),
    asRole: (claims, fn) => inTransaction((client) => client.query(roleSettings(claims)), fn),
    async runAsRole(claims, statement) {
      // Without parameters node-postgres sends the simple protocol, and answers a query of several
      // statements with one result each.
      const results = (await pool.query(roleScript(claims, statement))) as unknown as pg.QueryResult[]
      const last = results.at(-1)
      return { rows: (last?.rows ?? []) as never, affected: last?.rowCount ?? 0 }
    },
    listen: (channel, onNotify) => listen(connectionString, channel, onNotify),
    close: () => pool.end(),
  }
}
