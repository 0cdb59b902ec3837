import pg from 'pg'
import { from as copyFrom, to as copyTo } from 'pg-copy-streams'
import type { CopyTransaction } from './database'
import { wrap } from './pg-queryable'

/**
 * One transaction on a connection opened for it alone (Database.copyTransaction). node-postgres
 * refuses COPY's custom queries on a pipelining connection, which the pool's are. A failure closes
 * the connection rather than sending ROLLBACK: in the middle of a COPY the protocol is in no state
 * for another statement, and a closed connection rolls its transaction back all the same.
 */
export async function inCopyTransaction<T>(url: string, fn: (tx: CopyTransaction) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  // A dropped connection is reported through the failing query; this keeps it from crashing Node.
  client.on('error', () => {})
  await client.connect()
  const tx: CopyTransaction = {
    ...wrap(client),
    copyTo: (sql) => client.query(copyTo(sql)),
    copyFrom: (sql) => client.query(copyFrom(sql)),
  }
  try {
    await client.query('begin')
    const result = await fn(tx)
    await client.query('commit')
    await client.end()
    return result
  } catch (error) {
    // end() cuts the socket when a query (a COPY) is still under way, else says goodbye: either
    // way the server rolls back.
    await client.end().catch(() => {})
    throw error
  }
}
