import { GIVE_STATUSES_SQL } from './list-statuses'

/**
 * The bench's list (a million signups; fewer in a test) loaded straight into the table as its owner,
 * in one statement: addresses with
 * a random part (md5 of the row's number, as varied as real ones for the trigram index), three
 * signups to each instant (ties in created_at), spread over the last 89 days; one in 5,000 holds
 * "zq", which no other address does (a short search that matches a few, far apart). The outbox trigger is
 * told to skip them, as `import` does; the per-day counts' trigger counts them. Each has a source
 * (one in six none). A tenth then get statuses (GIVE_STATUSES_SQL), a fifth answers (ANSWERS), and
 * some the team's tags and notes (MARKS), which export and import carry.
 */
const LOAD = `
  insert into public.waitlist (email, created_at, source)
  select substr(md5(i::text), 1, 8) || case when i % 5000 = 0 then '.zq' else '' end || '.' || i || '@' ||
           (array['gmail.com', 'yahoo.com', 'outlook.com', 'proton.me', 'example.org'])[1 + i % 5],
         now() - (i / 3) * interval '23 seconds',
         (array['direct', 'hackernews', 'linkedin', '(api)', 'newsletter', null])[1 + i % 6]
    from generate_series(1, $1::int) as i`

/**
 * Issue 43's answers, as a list that asked its questions for a while would have them: one entry in
 * five answered (its role spread evenly over the five choices), half of those named an organisation,
 * a quarter said what they would use it for. Chosen by a hash of the id, so that they fall across the
 * statuses (which GIVE_STATUSES_SQL gives by the id's remainders) as real answers would.
 */
const ANSWERS = `
  insert into private.entry_answers (waitlist_id, answers)
  select id, jsonb_strip_nulls(jsonb_build_object(
           'role', (array['Research', 'Engineering', 'Product', 'Founder or executive', 'Other'])[1 + get_byte(h, 1) % 5],
           'organisation', case when get_byte(h, 2) < 128 then 'Org ' || get_byte(h, 3) end,
           'use_case', case when get_byte(h, 4) < 64 then 'Evaluating models for case ' || id end))
    from (select id, decode(md5('answers ' || id), 'hex') as h from public.waitlist) as hashed
   where get_byte(h, 0) < 51`

/**
 * Issue 50's marks, as a team choosing its cohort would leave them: one entry in twenty on the
 * shortlist, one in fifty to ask again, one in a hundred with a note, chosen by a hash of the id.
 */
const MARKS = `
  insert into private.entry_marks (waitlist_id, tags, note)
  select id,
         array_remove(array[case when get_byte(h, 1) < 5 then 'ask-again' end,
                            case when get_byte(h, 0) < 13 then 'shortlist' end], null),
         case when get_byte(h, 2) < 3 then 'Met at the workshop; asked about case ' || id end
    from (select id, decode(md5('marks ' || id), 'hex') as h from public.waitlist) as hashed
   where get_byte(h, 0) < 13 or get_byte(h, 1) < 5 or get_byte(h, 2) < 3`

/**
 * Fills the list with `rows` signups, their statuses, answers and marks, as the million bench has
 * them, in the caller's transaction (`waitlist.importing` on: the outbox trigger skips them, as
 * `import` does). Statistics are left as the load leaves them, before any autovacuum.
 */
export async function fillList(
  db: { query(sql: string, params?: unknown[]): Promise<unknown> },
  rows: number,
): Promise<void> {
  await db.query("set local waitlist.importing = 'on'")
  await db.query(LOAD, [rows])
  await db.query(GIVE_STATUSES_SQL)
  await db.query(ANSWERS)
  await db.query(MARKS)
}
