import type { Hono } from 'hono'
import type { Database } from '../../server/db/database'
import { readSendHealth, resumeSending } from '../../server/waitlist/mail-events/send-health'

/**
 * The studio's send health (ADR 045): the rates and the pause `deliveries` prints, and the POST that
 * resumes, as `deliveries --resume` does.
 */
export function routeStudioSendHealth(app: Hono, db: Database): void {
  app.get('/api/send-health', async (c) => c.json(await readSendHealth(db)))
  app.post('/api/send-health/resume', async (c) =>
    c.json({ resumed: (await resumeSending(db)) !== undefined }),
  )
}
