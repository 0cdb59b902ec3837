import { recordFolded } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'

/** Who asked, when no live session names a member: no cookie at all, or one whose session ended. */
export const NO_SESSION = '(no session)'
export const ENDED_SESSION = '(ended session)'

/** A request the guard refused: who asked (a member's address where known), what, why, from where. */
export interface Refusal {
  who: string
  network: string | undefined
  method: string
  path: string
  /** In a few words: `signed out`, `from another origin`, `a viewer may not invite people`. */
  why: string
  /** The route table has a row for the method and path (studio-routes.ts). */
  known: boolean
}

/**
 * What was asked, as the record keeps it: the route as the route table names it (`POST
 * /api/invite`), never the query string or the body; anything the table does not hold is "an
 * unknown request", so a stranger's made-up paths and methods cannot write their own lines.
 */
function askedFor({ method, path, known }: Refusal): string {
  return known ? `${method === 'HEAD' ? 'GET' : method} ${path}` : 'an unknown request'
}

/**
 * A refused request in the record (a 403 for the role or the Origin, a 401 for a session that has
 * ended or never was), folded as failed sign-ins are (audit-fold.ts): one line per who, what and
 * network an hour, with how many times, so a flood of refusals cannot grow the record without end.
 */
export function recordRefusal(db: Database, refusal: Refusal): Promise<void> {
  return recordFolded(
    db,
    { name: refusal.who, network: refusal.network },
    { action: 'refused', detail: `${askedFor(refusal)}: ${refusal.why}` },
  )
}
