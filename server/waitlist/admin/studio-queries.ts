import type { Queryable } from '../../db/database'

/**
 * The sources the list's entries came from, in alphabetical order, at most `limit`: what the
 * studio's source filter offers. A loose index scan on waitlist_source: each step jumps to the next
 * name in the index, so it reads one index entry per source, however many entries each has.
 * Entries kept without a source (imports, signups from before) are left out: no filter finds them.
 */
export async function presentSources(db: Queryable, limit: number): Promise<string[]> {
  const rows = await db.query<{ source: string }>(
    `with recursive present (source, n) as (
       (select source, 1 from public.waitlist where source is not null order by source limit 1)
       union all
       select (select w.source from public.waitlist w where w.source > p.source order by w.source limit 1), p.n + 1
         from present p where p.source is not null and p.n < $1::int
     )
     select source from present where source is not null`,
    [limit],
  )
  return rows.map((row) => row.source)
}
