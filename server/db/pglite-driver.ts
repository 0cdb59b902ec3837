import { Worker } from 'node:worker_threads'
import {
  type Database,
  type Queryable,
  roleScript,
  roleSettings,
  type Statement,
  type StatementResult,
} from './database'

type Request =
  | { op: 'query'; sql: string; params?: unknown[]; tx?: number }
  | { op: 'exec'; sql: string; tx?: number }
  | { op: 'begin' }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'close' }

interface Reply {
  id: number
  result?: StatementResult & { tx?: number }
  error?: Record<string, unknown> & { message: string }
}

/** A Postgres error rebuilt from the worker's copy, with its code, detail and hint. */
function rebuild(error: Reply['error']): Error {
  const { message, stack, ...fields } = error ?? { message: 'database worker error' }
  const rebuilt = Object.assign(new Error(message), fields)
  if (typeof stack === 'string') rebuilt.stack = stack
  return rebuilt
}

/**
 * Embedded Postgres (WebAssembly) on disk, run in a worker thread (pglite-worker.mjs): the
 * server's thread parses HTTP while the worker runs SQL, one statement at a time as PGlite does.
 * One process owns the directory: the caller holds the data-dir lock.
 */
export async function openPglite(directory: string): Promise<Database> {
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { directory } })
  const pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>()
  let nextId = 0
  let closing = false
  let failure: Error | undefined

  const ready = new Promise<void>((resolve, reject) => {
    pending.set(-1, { resolve: () => resolve(), reject })
  })
  worker.on('message', (reply: Reply) => {
    const caller = pending.get(reply.id)
    if (!caller) return
    pending.delete(reply.id)
    if (reply.error) caller.reject(rebuild(reply.error))
    else caller.resolve(reply)
  })
  const stopped = (error: Error) => {
    failure ??= error
    for (const caller of pending.values()) caller.reject(failure)
    pending.clear()
  }
  worker.on('error', stopped)
  worker.on('exit', (code) => {
    if (closing) return
    stopped(new Error(`the database worker stopped (exit code ${code})`))
    // A database that vanished under a running server is state nobody can reason about: fail
    // loudly, as an uncaught error, so the process exits and its supervisor starts a clean one.
    setImmediate(() => {
      throw failure
    })
  })
  await ready.catch(async (error) => {
    closing = true
    await worker.terminate()
    throw error
  })

  function call(request: Request): Promise<StatementResult & { tx?: number }> {
    if (failure) return Promise.reject(failure)
    const id = nextId++
    return new Promise<Reply>((resolve, reject) => {
      pending.set(id, { resolve, reject })
      worker.postMessage({ id, ...request })
    }).then((reply) => reply.result ?? { rows: [], affected: 0 })
  }

  function queryable(tx?: number): Queryable {
    return {
      async query(sql, params) {
        return (await call({ op: 'query', sql, params, tx })).rows as never
      },
      async run(sql, params) {
        return (await call({ op: 'query', sql, params, tx })) as never
      },
      async exec(sql) {
        await call({ op: 'exec', sql, tx })
      },
    }
  }

  async function transaction<T>(setUp: string | undefined, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const { tx } = await call({ op: 'begin' })
    if (tx === undefined) throw new Error('the database worker opened no transaction')
    try {
      if (setUp) await call({ op: 'exec', sql: setUp, tx })
      const result = await fn(queryable(tx))
      await call({ op: 'end', tx, commit: true })
      return result
    } catch (error) {
      await call({ op: 'end', tx, commit: false }).catch(() => {})
      throw error
    }
  }

  return {
    kind: 'pglite',
    ...queryable(),
    transaction: (fn) => transaction(undefined, fn),
    asRole: (claims, fn) => transaction(roleSettings(claims), fn),
    // One message, one call into PGlite, which queues it behind any transaction in progress.
    runAsRole: (claims, statement: Statement) =>
      call({ op: 'exec', sql: roleScript(claims, statement) }) as never,
    async close() {
      if (closing) return
      closing = true
      try {
        if (!failure) await call({ op: 'close' })
      } finally {
        await worker.terminate()
      }
    },
  }
}
