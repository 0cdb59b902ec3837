import { PGlite, type Transaction } from '@electric-sql/pglite'
import { citext } from '@electric-sql/pglite/contrib/citext'
import { type Database, type Queryable, roleParams, roleScript, SET_ROLE_SQL } from './database'

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query(sql, params) {
      return (await target.query(sql, params)).rows as never
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
        await tx.query(SET_ROLE_SQL, roleParams(claims))
        return fn(wrap(tx))
      }),
    async runAsRole(claims, statement) {
      // One call into PGlite, which also queues it behind any transaction in progress.
      const results = await pg.exec(roleScript(claims, statement))
      return (results.at(-1)?.rows ?? []) as never
    },
    async close() {
      if (pg.closed) return
      // PGlite writes lazily; a checkpoint first means a clean close leaves nothing to replay.
      await pg.exec('checkpoint')
      await pg.close()
    },
  }
}
