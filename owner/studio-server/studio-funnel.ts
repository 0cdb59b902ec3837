import type { Hono } from 'hono'
import type { Database } from '../../server/db/database'
import { funnel } from '../../server/waitlist/admin/funnel'

/**
 * The funnel under the sources, as `funnel --json` gives it (funnel.ts): by source or by batch,
 * over the chart's range (30 or 90 days, or all).
 */
export function routeStudioFunnel(app: Hono, db: Database): void {
  app.get('/api/funnel', async (c) => {
    const by = c.req.query('by') ?? 'source'
    const range = c.req.query('days') ?? '30'
    if (by !== 'source' && by !== 'batch') return c.json({ error: 'by must be source or batch' }, 400)
    if (range !== '30' && range !== '90' && range !== 'all')
      return c.json({ error: 'days must be 30, 90 or all' }, 400)
    return c.json(await funnel(db, by, range === 'all' ? 'all' : Number(range)))
  })
}
