// PGlite in a worker thread of its own, so the server's thread answers HTTP while this one runs SQL
// (pglite-driver.ts is the other end). Plain JavaScript: a worker thread starts without the
// TypeScript loader the main thread runs under.
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { citext } from '@electric-sql/pglite/contrib/citext'

/** Rejects a held transaction's callback, so PGlite rolls it back; never seen outside this file. */
const ROLLBACK = Symbol('rollback')

/** Open transactions by id: PGlite's transaction callback, held until the main thread ends it. */
const transactions = new Map()
let nextTransaction = 0

/** The result of the last statement: its rows and its command tag's count. */
function resultOf(result) {
  return { rows: result?.rows ?? [], affected: result?.affectedRows ?? 0 }
}

function targetOf(message) {
  if (message.tx === undefined) return pg
  const transaction = transactions.get(message.tx)
  if (!transaction) throw new Error(`transaction ${message.tx} is not open`)
  return transaction.tx
}

async function begin() {
  const id = nextTransaction++
  let opened
  const started = new Promise((resolve) => {
    opened = resolve
  })
  const done = pg.transaction(
    (tx) =>
      new Promise((resolve, reject) => {
        transactions.set(id, { tx, resolve, reject })
        opened()
      }),
  )
  // A BEGIN that fails rejects `done` before the callback ever runs.
  await Promise.race([started, done])
  transactions.get(id).done = done
  return { tx: id }
}

async function end({ tx, commit }) {
  const transaction = transactions.get(tx)
  if (!transaction) throw new Error(`transaction ${tx} is not open`)
  transactions.delete(tx)
  if (commit) transaction.resolve()
  else transaction.reject(ROLLBACK)
  try {
    await transaction.done
  } catch (error) {
    if (error !== ROLLBACK) throw error
  }
  return {}
}

async function handle(message) {
  switch (message.op) {
    case 'query':
      return resultOf(await targetOf(message).query(message.sql, message.params))
    case 'exec':
      return resultOf((await targetOf(message).exec(message.sql)).at(-1))
    case 'begin':
      return begin()
    case 'end':
      return end(message)
    case 'close':
      if (!pg.closed) {
        // PGlite writes lazily; a checkpoint first means a clean close leaves nothing to replay.
        await pg.exec('checkpoint')
        await pg.close()
      }
      return {}
    default:
      throw new Error(`unknown operation ${message.op}`)
  }
}

/** An error as data the main thread can rebuild: Postgres's fields (code, detail, hint…) kept. */
function serialise(error) {
  if (!(error instanceof Error)) return { message: String(error) }
  return { ...error, name: error.name, message: error.message, stack: error.stack }
}

const pg = await PGlite.create(workerData.directory, { extensions: { citext } }).catch((error) => {
  parentPort.postMessage({ id: -1, error: serialise(error) })
  throw error
})

parentPort.on('message', (message) => {
  handle(message).then(
    (result) => parentPort.postMessage({ id: message.id, result }),
    (error) => parentPort.postMessage({ id: message.id, error: serialise(error) }),
  )
})
parentPort.postMessage({ id: -1, result: {} })
