import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { openDatabase } from '../db/open-database'
import { createApp } from '../http/app'
import { loadApiKeys } from '../http/keys'
import { ownOrigins } from '../http/mcp/origin-guard'
import { jsonError } from '../http/middleware/json-error'
import { httpServerOptions, onClientError } from '../http/middleware/node-limits'
import { RateLimiter } from '../http/middleware/rate-limit'
import { securityHeaderValues } from '../http/middleware/security-headers'
import { loadSchemaCache } from '../http/rest/schema-cache'
import { fillInSiteUrl, normalizeSiteUrl } from '../http/site-url'
import { loadStaticSite } from '../http/static-site'
import { startNotifications } from '../waitlist/notifications/start-notifications'
import type { ServerEnv } from './env'
import { createLogger, keyEmailMask } from './log'
import { DIST_DIR } from './paths'

export interface RunningServer {
  url: string
  anonKey: string
  serviceKey: string
  /** Stops accepting, lets in-flight requests finish, then closes the database (and stops the embedded cluster). */
  stop(): Promise<void>
}

export interface StartOptions {
  distDir?: string
  /**
   * Settles when dist is built. The database starts meanwhile: on a first start initdb and the
   * build run side by side instead of one after the other.
   */
  siteBuilt?: Promise<void>
  /** Something under the server broke beyond repair (the embedded cluster cannot be restarted). */
  onFatal(error: Error): void
}

export async function startServer(env: ServerEnv, options: StartOptions): Promise<RunningServer> {
  const distDir = options.distDir ?? DIST_DIR
  const log = createLogger(env.LOG_LEVEL)
  const keys = await loadApiKeys({ jwtSecret: env.JWT_SECRET, dataDir: env.DATA_DIR })
  keyEmailMask(keys.secret)
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    log: (message) => log.info(message),
    onClusterLost: (error) => options.onFatal(error),
  })
  try {
    for (const migration of database.applied) log.info(`Applied migration ${migration}`)
    const schema = await loadSchemaCache(database.db)
    await options.siteBuilt
    const site = await loadStaticSite(distDir, keys.anonKey)
    // Checked before listening, so a bad SITE_URL stops start-up before anything is served.
    const publicUrl = env.SITE_URL === undefined ? undefined : normalizeSiteUrl(env.SITE_URL)
    const rateLimiter =
      env.RATE_LIMIT_PER_MINUTE > 0
        ? new RateLimiter({ perMinute: env.RATE_LIMIT_PER_MINUTE, burst: env.RATE_LIMIT_BURST })
        : undefined
    let siteOrigins: string[] = []
    const app = createApp({
      siteOrigins: () => siteOrigins,
      db: database.db,
      keys,
      schema,
      site,
      log,
      protections: {
        rateLimiter,
        trustProxyHeader: env.TRUST_PROXY_HEADER,
        dbQueueLimit: env.DB_QUEUE_LIMIT,
        security: {
          hsts: env.HSTS,
          connectOrigins: env.VITE_SUPABASE_URL ? [new URL(env.VITE_SUPABASE_URL).origin] : [],
        },
      },
    })

    let stopping = false
    const listener = getRequestListener(
      async (request, bindings) => {
        const response = await app.fetch(request, bindings)
        // While draining, each answer closes its connection so keep-alive clients let go.
        if (stopping) {
          try {
            response.headers.set('Connection', 'close')
          } catch {
            // Immutable headers (Response.redirect()): Node closes the socket once the server is closed.
          }
        }
        return response
      },
      {
        hostname: env.HOST,
        // A request Node accepted but the Fetch API cannot represent (bad Host, backslash in the path).
        errorHandler: () =>
          jsonError(400, 'PGRST400', 'Malformed HTTP request', null, securityHeaderValues()),
      },
    )
    const server = createServer(
      httpServerOptions({
        headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
        requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
      }),
      listener,
    )
    server.on('clientError', onClientError)
    server.listen(env.PORT, env.HOST)
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve)
      server.once('error', reject)
    })
    const { port } = server.address() as AddressInfo
    const host = env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST
    const url = `http://${host}:${port}`
    // Synchronous and with no await since 'listening', so done before the first request is read.
    fillInSiteUrl(site, publicUrl ?? url)
    siteOrigins = ownOrigins(url, publicUrl ?? url)
    const deliverer = await startNotifications(env, database.db, log)

    if (keys.generated) {
      // A key on a terminal is seen once; one in a log stays in every log collector it reaches.
      log.info(
        `Generated a JWT secret in ${env.DATA_DIR}/jwt-secret (keep it private).\n` +
          (process.stdout.isTTY
            ? `service_role key (shown once; also: npm run waitlist -- keys):\n  ${keys.serviceKey}`
            : 'The service_role key is shown only on a terminal, never in logs: npm run waitlist -- keys'),
      )
    }

    return {
      url,
      anonKey: keys.anonKey,
      serviceKey: keys.serviceKey,
      async stop() {
        stopping = true
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
          if ('closeIdleConnections' in server) server.closeIdleConnections()
        })
        await deliverer?.stop()
        await database.close()
      },
    }
  } catch (error) {
    await database.close()
    throw error
  }
}
