import type pg from 'pg'
import type { Queryable } from './database'

/** query, run and exec on a pool, a pooled client or a client of its own (copy-transaction.ts). */
export function wrap(target: pg.Pool | pg.ClientBase): Queryable {
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
