import type { Queryable } from '../db/database'

/**
 * What an erasure leaves of a person in the lab's figures: counts, never who (issue 64). Before the
 * entry's rows go (erasure.ts, in its transaction):
 * - the batch the person counted in (funnel.ts's rule: the one whose invitation they redeemed, else
 *   their latest) adds one to `erased`, and to `erased_joined` if they had joined, so the batch
 *   keeps its counts ("5 invited, 1 erased since") as the team's record keeps its line of it;
 * - the signup the server counted for them by source (source-counter.ts) is taken back, so
 *   `sources`, `stats` and the studio count the same people: those on the list. Visits stay: they
 *   happened, and name nobody. Only an entry made through the site's doors was counted (they keep
 *   its network; an import keeps none), on its UTC day, under its source; of that source's media
 *   and campaigns that day, the one with the most signups gives one back (the entry keeps no medium).
 */
export async function countErasure(tx: Queryable, email: string): Promise<void> {
  await tx.query(
    `with entry as (
       select w.id, coalesce(s.joined_at is not null or s.status = 'joined', false) as joined
         from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
        where w.email = $1::extensions.citext
     ), person as (
       select o.batch_id from private.mail_outbox o join entry on entry.id = o.waitlist_id
        where o.kind = 'invitation' and o.batch_id is not null
        order by (o.redeemed_at is not null) desc, o.id desc
        limit 1
     )
     update private.invite_batches b
        set erased = b.erased + 1, erased_joined = b.erased_joined + (select joined::int from entry)
       from person where b.id = person.batch_id`,
    [email],
  )
  await tx.query(
    `with entry as (
       select w.source, (w.created_at at time zone 'UTC')::date as day
         from public.waitlist w
        where w.email = $1::extensions.citext and w.source is not null and w.signup_network is not null
     ), counted as (
       select c.day, c.source, c.medium, c.campaign
         from private.source_counts c join entry on c.day = entry.day and c.source = entry.source
        where c.signups > 0
        order by c.signups desc, c.medium, c.campaign
        limit 1
        for update of c
     )
     update private.source_counts c set signups = c.signups - 1
       from counted
      where (c.day, c.source, c.medium, c.campaign) = (counted.day, counted.source, counted.medium, counted.campaign)`,
    [email],
  )
}
