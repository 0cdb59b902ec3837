import pg from 'pg'
import { quoteIdent } from './sql-identifier'

const RECONNECT_MS = 2_000

/**
 * LISTEN on a connection of its own (a pooled one would hand the subscription to whoever takes it
 * next). A lost connection is reopened after a pause; notifications sent meanwhile are missed,
 * which is why callers also poll.
 */
export async function listen(
  connectionString: string,
  channel: string,
  onNotify: () => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined
  let stopped = false
  let retry: NodeJS.Timeout | undefined

  const connect = async () => {
    const next = new pg.Client({ connectionString })
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify()
    })
    next.on('error', () => {}) // 'end' follows; reconnect there
    next.on('end', () => {
      if (client !== next) return
      client = undefined
      scheduleRetry()
    })
    try {
      await next.connect()
      await next.query(`listen ${quoteIdent(channel)}`)
    } catch (error) {
      await next.end().catch(() => {})
      throw error
    }
    if (stopped) {
      await next.end()
      return
    }
    client = next
    onNotify() // anything sent while we were not listening
  }
  function scheduleRetry() {
    if (stopped) return
    retry = setTimeout(() => void connect().catch(scheduleRetry), RECONNECT_MS)
    retry.unref()
  }

  await connect()
  return async () => {
    stopped = true
    clearTimeout(retry)
    const last = client
    client = undefined
    await last?.end().catch(() => {})
  }
}
