import type { Hono } from 'hono'
import type { Database } from '../../server/db/database'
import { readSendHealth, resumeSending } from '../../server/mail/queue/send-health'

/**
 * The studio's send health (ADR 045): each lane's rates and pause, as `deliveries` prints them, and
 * the POST that resumes every paused lane, as `deliveries --resume` does.
 */
export function routeStudioSendHealth(app: Hono, db: Database): void {
  app.get('/api/send-health', async (c) => c.json(await readSendHealth(db)))
  app.post('/api/send-health/resume', async (c) => c.json({ resumed: (await resumeSending(db)).length > 0 }))
}
