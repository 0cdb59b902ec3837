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
 *   and campaigns that day, the one with the most signups gives one back (the entry keeps no medium):
 *   takeBackSignups.
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
  const [counted] = await tx.query<CountedSignup>(
    `select ${COUNTED_SIGNUP} from public.waitlist w
      where w.email = $1::extensions.citext and ${WAS_COUNTED}`,
    [email],
  )
  if (counted) await takeBackSignups(tx, [counted])
}

/** A signup the counter counted (source-counter.ts): its UTC day and its source. */
export interface CountedSignup {
  day: string
  source: string
}

/** The columns of a CountedSignup, over `public.waitlist w`. */
export const COUNTED_SIGNUP = `to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, w.source`

/**
 * An entry the counter counted: made through the site's doors, which keep its network and its
 * source (an import keeps no network; with counting off, no source).
 */
export const WAS_COUNTED = 'w.source is not null and w.signup_network is not null'

/**
 * Takes these signups back from the counts by source, as one statement: per day and source, from its
 * media and campaigns with the most signups first, never below zero. The erasure's one, and the
 * expiry's of unconfirmed entries (confirmations.ts), which erases as `remove` does.
 */
export async function takeBackSignups(tx: Queryable, signups: readonly CountedSignup[]): Promise<void> {
  if (signups.length === 0) return
  await tx.query(
    `with wanted as (
       select day, source, count(*)::bigint as n
         from unnest($1::date[], $2::text[]) as erased (day, source)
        group by day, source
     ), ranked as (
       select c.day, c.source, c.medium, c.campaign, c.signups, wanted.n,
              coalesce(sum(c.signups) over (
                partition by c.day, c.source order by c.signups desc, c.medium, c.campaign
                rows between unbounded preceding and 1 preceding), 0) as before
         from private.source_counts c join wanted on (c.day, c.source) = (wanted.day, wanted.source)
        where c.signups > 0
     )
     update private.source_counts c set signups = c.signups - least(r.signups, r.n - r.before)
       from ranked r
      where (c.day, c.source, c.medium, c.campaign) = (r.day, r.source, r.medium, r.campaign)
        and r.before < r.n`,
    [signups.map((signup) => signup.day), signups.map((signup) => signup.source)],
  )
}
