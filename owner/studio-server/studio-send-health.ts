import type { Hono } from 'hono'
import type { Database } from '../../server/admin/runtime'
import { readSendReport, resumeSending } from '../../server/admin/sending'
import { actorOf } from './studio-actor'

/**
 * The studio's send health (ADR 045, 083): each lane's rates and pause, and the networks whose
 * confirmations wait, as `deliveries` prints them, and the POST that resumes every paused lane and
 * network, as `deliveries --resume` does.
 */
export function routeStudioSendHealth(app: Hono, db: Database): void {
  app.get('/api/send-health', async (c) => c.json(await readSendReport(db)))
  app.post('/api/send-health/resume', async (c) => {
    const { lanes, networks } = await resumeSending(db, actorOf(c))
    return c.json({ resumed: lanes.length + networks.length > 0 })
  })
}
