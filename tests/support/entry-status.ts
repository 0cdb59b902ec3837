import type { Queryable } from '../../server/db/database'

/** An entry's status as the owner's tools show it: its row in private.entry_status, else waiting. */
export async function entryStatus(db: Queryable, email: string): Promise<string | undefined> {
  const [row] = await db.query<{ status: string }>(
    `select coalesce(s.status, 'waiting') as status from public.waitlist w
       left join private.entry_status s on s.waitlist_id = w.id where w.email = $1`,
    [email],
  )
  return row?.status
}
