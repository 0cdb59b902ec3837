import type { Context } from 'hono'
import type { Actor } from '../../server/admin/audit'

declare module 'hono' {
  interface ContextVariableMap {
    /** Who is asking, for the record: set by the studio's guard before any route runs. */
    actor: Actor
  }
}

/** The person behind this request, as the guard named them (a team member, or `cli:` and the OS user). */
export function actorOf(c: Context): Actor {
  const actor = c.get('actor')
  // A route reached with no guard before it is a wiring mistake, never an anonymous change.
  if (!actor) throw new Error(`No guard named who asked for ${c.req.method} ${c.req.path}`)
  return actor
}
