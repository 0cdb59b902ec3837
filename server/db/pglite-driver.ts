import { PGlite, type Transaction } from '@electric-sql/pglite'
import { citext } from '@electric-sql/pglite/contrib/citext'
import { type Database, type Queryable, roleScript, roleSettings } from './database'

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query(sql, params) {
      return (await target.query(sql, params)).rows as never
    },
    async run(sql, params) {
      const result = await target.query(sql, params)
      return { rows: result.rows as never, affected: result.affectedRows ?? 0 }
    },
    async exec(sql) {
      await target.exec(sql)
    },
  }
}

/**
 * Embedded Postgres (WebAssembly) on disk. One process owns the directory: the caller holds
 * the data-dir lock. PGlite runs one query at a time; its transaction() queues callers.
 */
export async function openPglite(directory: string): Promise<Database> {
  const pg = await PGlite.create(directory, { extensions: { citext } })
  const owner = wrap(pg)
  return {
    kind: 'pglite',
    ...owner,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    asRole: (claims, fn) =>
      pg.transaction(async (tx) => {
        await tx.exec(roleSettings(claims))
        return fn(wrap(tx))
      }),
    async runAsRole(claims, statement) {
      // One call into PGlite, which also queues it behind any transaction in progress.
      const last = (await pg.exec(roleScript(claims, statement))).at(-1)
      return { rows: (last?.rows ?? []) as never, affected: last?.affectedRows ?? 0 }
    },
    async close() {
      if (pg.closed) return
      // PGlite writes lazily; a checkpoint first means a clean close leaves nothing to replay.
      await pg.exec('checkpoint')
      await pg.close()
    },
  }
}
