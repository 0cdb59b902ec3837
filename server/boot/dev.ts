import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createServer } from 'vite'
import { MCP_PATH } from '../../contract/agent-tool'
import { CONFIRM_SIGNUPS_PLACEHOLDER } from '../../contract/site-url'
import { keySourcesOf, loadApiKeys } from '../auth/api-keys'
import { openDatabase } from '../db/open-database'
import { createApp } from '../http/app'
import { ownOrigins } from '../http/mcp/origin-guard'
import { loadSchemaCache } from '../http/rest/schema-cache'
import { ANON_KEY_PLACEHOLDER, type StaticFile } from '../http/static-site'
import { addressPolicyOf } from '../waitlist/address-policy/address-policy-env'
import { dataDirNote } from './default-data-dir'
import { loadDotEnvFile, loadServerEnv, type ServerEnv } from './env'
import { createLogger, type Logger } from './log'
import { ROOT } from './paths'
import { protectionsOf } from './start-server'

// Vite serves every page; the app behind the proxy only ever answers the paths sent to it.
const NO_PAGE: StaticFile = {
  body: Buffer.alloc(0),
  contentType: 'text/plain',
  etag: '""',
  cacheControl: 'no-store',
}

/** The server's app (REST, /mcp, /healthz, the form) on a private port, for Vite's proxy. */
async function startApi(env: ServerEnv, log: Logger) {
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
  const keys = await loadApiKeys({ ...keySourcesOf(env), db: database.db })
  const schema = await loadSchemaCache(database.db)
  const site = { home: NO_PAGE, notFound: NO_PAGE, files: new Map(), scriptHashes: [] }
  const pageUrl = `http://${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${env.PORT}`
  const devOrigins = [...ownOrigins(pageUrl, env.SITE_URL ?? pageUrl), ...env.CORS_ORIGINS]
  const app = createApp({
    db: database.db,
    keys,
    schema,
    site,
    log,
    protections: protectionsOf(env, database.db),
    siteOrigins: () => ownOrigins(pageUrl, env.SITE_URL ?? pageUrl),
    // Vite's page, under either loopback name, as well as SITE_URL's and CORS_ORIGINS.
    restOrigins: () => devOrigins,
    addressPolicy: addressPolicyOf(env),
  })
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    anonKey: keys.anonKey,
    async close() {
      server.close()
      await database.close()
    },
  }
}

/**
 * `npm run dev`: Vite's dev server with hot reload on PORT, and the server's own app (same database,
 * keys, migrations, rate limit and queue as `npm start`) on a private port behind Vite's proxy: the
 * REST API, /mcp, /healthz and the no-script POST /. What differs is in docs/operations.md.
 */
async function main() {
  loadDotEnvFile()
  const env = loadServerEnv()
  const note = dataDirNote(env.DATA_DIR)
  if (note) console.log(note)
  const api = await startApi(env, createLogger(env.LOG_LEVEL))
  const vite = await createServer({
    root: ROOT,
    server: {
      host: env.HOST,
      port: env.PORT,
      strictPort: true,
      proxy: {
        '/rest': api.url,
        [MCP_PATH]: api.url,
        '/healthz': api.url,
        // The no-script form posts to the page's own path; Vite keeps serving the page for GET.
        '^/$': {
          target: api.url,
          bypass: (request) => (request.method === 'POST' ? undefined : request.url),
        },
      },
    },
    plugins: [
      {
        name: 'inject-anon-key',
        transformIndexHtml: (html) =>
          html
            .replaceAll(ANON_KEY_PLACEHOLDER, api.anonKey)
            .replaceAll(CONFIRM_SIGNUPS_PLACEHOLDER, env.CONFIRM_SIGNUPS ? 'on' : 'off'),
      },
    ],
  })
  await vite.listen()
  vite.printUrls()

  const shutdown = async () => {
    await vite.close()
    await api.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown())
  process.on('SIGTERM', () => void shutdown())
  process.on('SIGHUP', () => void shutdown())
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
