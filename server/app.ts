import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { Database } from './db/database'
import type { ApiKeys } from './keys'
import type { Logger } from './log'
import { submitNativeForm } from './native-form'
import { createRestApp, MAX_BODY_BYTES } from './rest/rest-app'
import type { SchemaCache } from './rest/schema-cache'
import { type StaticSite, serveFile } from './static-site'

export interface AppDeps {
  db: Database
  keys: ApiKeys
  schema: SchemaCache
  site: StaticSite
  log: Logger
}

/** The whole HTTP surface, apart from `serve()` so tests can call `app.request()` without a port. */
export function createApp(deps: AppDeps): Hono {
  const { db, site, log } = deps
  const app = new Hono()

  app.use(async (c, next) => {
    const started = performance.now()
    await next()
    const ms = (performance.now() - started).toFixed(1)
    log.info(`${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms`)
  })

  app.get('/healthz', async (c) => {
    try {
      await db.query('select 1')
      return c.json({ status: 'ok' })
    } catch (error) {
      log.error('health check failed:', error)
      return c.json({ status: 'unavailable' }, 503)
    }
  })

  app.route('/rest/v1', createRestApp(deps))

  app.post(
    '/',
    bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.redirect('/?waitlist=error', 303) }),
    async (c) => {
      const form = await c.req.formData().catch(() => new FormData())
      const result = await submitNativeForm(db, log, form)
      return c.redirect(`/?waitlist=${result}`, 303)
    },
  )

  app.on(['GET', 'HEAD'], '*', (c) => {
    if (c.req.path === '/') return serveFile(c.req.raw, site.home)
    const file = site.files.get(c.req.path)
    if (file) return serveFile(c.req.raw, file)
    return serveFile(c.req.raw, site.notFound, 404)
  })

  app.all('*', (c) => serveFile(c.req.raw, site.notFound, 404))
  return app
}
