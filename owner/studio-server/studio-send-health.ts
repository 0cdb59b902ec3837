import type { Context } from 'hono'
import type { Database } from '../../server/admin/runtime'
import { readSendReport, resumeSending } from '../../server/admin/sending'
import { actorOf } from './studio-actor'

/**
 * The studio's send health (ADR 045, 083): each lane's rates and pause, and the networks whose
 * confirmations wait, as `deliveries` prints them, and the POST that resumes every paused lane and
 * network, as `deliveries --resume` does.
 */
export const studioSendHealth = (db: Database) => ({
  report: async (c: Context) => c.json(await readSendReport(db)),
  resume: async (c: Context) => {
    const { lanes, networks } = await resumeSending(db, actorOf(c))
    return c.json({ resumed: lanes.length + networks.length > 0 })
  },
})
