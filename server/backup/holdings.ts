import type { Queryable } from '../db/database'

/** What a copy holds, counted in one statement: what `backup`, `restore` and the backup's manifest say. */
export async function countHoldings(db: Queryable): Promise<Record<string, number>> {
  const [row] = await db.query<Record<string, number>>(
    `select (select count(*) from public.waitlist)::int as entries,
            (select count(*) from private.team_members)::int as "team members",
            (select count(*) from private.team_passkeys)::int as passkeys,
            (select count(*) from private.audit_log)::int as "lines of the record",
            (select count(*) from private.suppressed)::int as "erased addresses"`,
  )
  return row ?? {}
}

export const holdingsLine = (holds: Record<string, number>) =>
  Object.entries(holds)
    .map(([what, count]) => `${count.toLocaleString('en-US')} ${what}`)
    .join(', ')
