import type { Handler } from 'hono'
import { DEFAULT_FUNNEL_WINDOW, isFunnelWindow } from '../../contract/funnel-windows'
import { funnel } from '../../server/admin/funnel'
import type { Database } from '../../server/admin/runtime'

/**
 * The funnel, as `funnel --json` gives it (funnel.ts): by source or by batch, over the CLI's windows
 * (30 or 90 days, or all) and by default, as it, the whole list.
 */
export function studioFunnel(db: Database): Handler {
  return async (c) => {
    const by = c.req.query('by') ?? 'source'
    const window = c.req.query('days') ?? DEFAULT_FUNNEL_WINDOW
    if (by !== 'source' && by !== 'batch' && by !== 'agent')
      return c.json({ error: 'by must be source, batch or agent' }, 400)
    if (!isFunnelWindow(window)) return c.json({ error: 'days must be 30, 90 or all' }, 400)
    return c.json(await funnel(db, by, window))
  }
}
