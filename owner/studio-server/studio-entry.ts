import type { Handler } from 'hono'
import { entryHistory } from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'

const MAX_EMAIL = 254

/**
 * The studio's entry panel: one entry as `show EMAIL --json` prints it (entry-history.ts): its
 * address, status, source, answers and history, oldest first. 404 when no entry has the address.
 */
export function studioEntry(db: Database): Handler {
  return async (c) => {
    const email = c.req.query('email')?.trim() ?? ''
    if (email === '' || email.length > MAX_EMAIL)
      return c.json({ error: `email needs an address of 1 to ${MAX_EMAIL} characters` }, 400)
    const entry = await entryHistory(db, email)
    if (!entry) return c.json({ error: 'No entry has this address (it may have been removed).' }, 404)
    return c.json(entry)
  }
}
