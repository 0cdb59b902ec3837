import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { createServer } from 'vite'
import { openDatabase } from '../db/open-database'
import { loadApiKeys } from '../http/keys'
import { dbGate } from '../http/middleware/db-gate'
import { jsonError } from '../http/middleware/json-error'
import { createRestApp } from '../http/rest/rest-app'
import { loadSchemaCache } from '../http/rest/schema-cache'
import { ANON_KEY_PLACEHOLDER } from '../http/static-site'
import { loadDotEnvFile, loadServerEnv } from './env'
import { createLogger } from './log'
import { ROOT } from './paths'

/**
 * `npm run dev`: Vite's dev server with hot reload on PORT, and the real REST API (same database,
 * keys and migrations as `npm start`) on a private port behind Vite's proxy.
 */
async function main() {
  loadDotEnvFile()
  const env = loadServerEnv()
  const log = createLogger(env.LOG_LEVEL)
  const keys = await loadApiKeys({ jwtSecret: env.JWT_SECRET, dataDir: env.DATA_DIR })
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    purpose: 'dev server',
    log: (message) => log.info(message),
    onClusterLost(error) {
      console.error(error.message)
      process.exit(1)
    },
  })
  const schema = await loadSchemaCache(database.db)

  const api = new Hono()
  const gate = dbGate(env.DB_QUEUE_LIMIT, () => jsonError(503, 'PGRST503', 'The server is busy'))
  api.route('/rest/v1', createRestApp({ db: database.db, keys, schema, log, gate }))
  const apiServer = serve({ fetch: api.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => apiServer.once('listening', resolve))
  const apiUrl = `http://127.0.0.1:${(apiServer.address() as AddressInfo).port}`

  const vite = await createServer({
    root: ROOT,
    server: { host: env.HOST, port: env.PORT, strictPort: true, proxy: { '/rest': apiUrl } },
    plugins: [
      {
        name: 'inject-anon-key',
        transformIndexHtml: (html) => html.replaceAll(ANON_KEY_PLACEHOLDER, keys.anonKey),
      },
    ],
  })
  await vite.listen()
  vite.printUrls()

  const shutdown = async () => {
    await vite.close()
    apiServer.close()
    await database.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown())
  process.on('SIGTERM', () => void shutdown())
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
