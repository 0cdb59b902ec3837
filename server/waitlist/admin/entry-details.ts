import type { Queryable } from '../../db/database'

/**
 * An entry's details: what an import brought that has no field of its own, header → value, as the
 * file had it (private.entry_details, ADR 116); {} for none or for an address not listed.
 */
export async function entryDetails(db: Queryable, email: string): Promise<Record<string, string>> {
  const [row] = await db.query<{ details: Record<string, string> }>(
    `select d.details from public.waitlist w join private.entry_details d on d.waitlist_id = w.id
      where w.email operator(extensions.=) $1::extensions.citext`,
    [email],
  )
  return row?.details ?? {}
}
