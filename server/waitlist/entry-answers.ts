import type { Answers } from '../../contract/signup-questions'
import type { Queryable } from '../db/database'
import { keepName, NAME_KEY, splitName } from './entry-name'

/**
 * An entry's answers to the lab's optional questions (owner-only, never readable with a public
 * key, erased with the entry: `remove`, the confirmation's expiry). Only the person's own count
 * (ADR 084): the kept answers (private.entry_answers) are the only ones filters and export read;
 * an agent's answers for an address not yet confirmed are only proposed (private.proposed_answers),
 * until the person keeps, changes or clears them on the confirmation page.
 */

/** Kept answers, written whole: answering again replaces them, and none at all leaves no row. */
export async function saveAnswers(tx: Queryable, waitlistId: string, answers: Answers): Promise<void> {
  if (Object.keys(answers).length === 0) {
    await tx.run('delete from private.entry_answers where waitlist_id = $1::bigint', [waitlistId])
    return
  }
  await tx.run(
    `insert into private.entry_answers (waitlist_id, answers) values ($1::bigint, $2::jsonb)
     on conflict (waitlist_id) do update set answers = excluded.answers, updated_at = now()`,
    [waitlistId, JSON.stringify(answers)],
  )
}

/**
 * What the person posted on the confirmation page: kept as it is, their name too (entry-name.ts),
 * and whatever an agent proposed is gone, answered one way or the other.
 */
export async function keepAnswers(tx: Queryable, waitlistId: string, given: Answers): Promise<void> {
  const { name, answers } = splitName(given)
  await keepName(tx, waitlistId, name)
  await saveAnswers(tx, waitlistId, answers)
  await tx.run('delete from private.proposed_answers where waitlist_id = $1::bigint', [waitlistId])
}

/**
 * A new entry's answers from an agent's tool call, in the signup's transaction (its trigger has
 * run): proposed while the entry waits for its confirmation, since nobody has asked the person yet;
 * kept when there is no confirmation to wait for (CONFIRM_SIGNUPS off), as no one else will be asked.
 */
export async function giveAnswers(tx: Queryable, waitlistId: string, given: Answers): Promise<void> {
  // Proposed, the name stays among the answers (under `name`); kept, it goes to its own table.
  const { name, answers } = splitName(given)
  await tx.run(
    `with entry as (
       select exists (select 1 from private.entry_status s
                       where s.waitlist_id = $1::bigint and s.status = 'unconfirmed') as unconfirmed
     ), proposed as (
       insert into private.proposed_answers (waitlist_id, answers)
       select $1::bigint, $2::jsonb from entry where unconfirmed
     ), named as (
       insert into private.entry_names (waitlist_id, name)
       select $1::bigint, $4::text from entry where not unconfirmed and $4::text is not null
     )
     insert into private.entry_answers (waitlist_id, answers)
     select $1::bigint, $3::jsonb from entry where not unconfirmed and $3::jsonb <> '{}'::jsonb`,
    [waitlistId, JSON.stringify(given), JSON.stringify(answers), name ?? null],
  )
}

/** The kept answers of the entry with this address (any letter case), or undefined when it has none. */
export async function answersOf(db: Queryable, email: string): Promise<Answers | undefined> {
  const [row] = await db.query<{ answers: Answers }>(
    `select a.answers from private.entry_answers a join public.waitlist w on w.id = a.waitlist_id
      where w.email operator(extensions.=) $1::extensions.citext`,
    [email],
  )
  return row?.answers
}

/**
 * What the confirmation page shows the person: their kept answers, else an agent's proposed ones,
 * and their name (under `name`): kept, else proposed.
 */
export interface HeldAnswers {
  given: Answers | undefined
  /** Invited (or joined): the answers went to the lab with the entry and no longer change. */
  fixed: boolean
}

/** The answers the confirmation page fills its form with, and whether they may still change. */
export async function heldAnswers(db: Queryable, email: string): Promise<HeldAnswers | undefined> {
  const [row] = await db.query<{
    kept: Answers | null
    proposed: Answers | null
    name: string | null
    fixed: boolean
  }>(
    `select a.answers as kept, p.answers as proposed, n.name, ${ANSWERS_FIXED} as fixed
       from public.waitlist w
       left join private.entry_status s on s.waitlist_id = w.id
       left join private.entry_answers a on a.waitlist_id = w.id
       left join private.proposed_answers p on p.waitlist_id = w.id
       left join private.entry_names n on n.waitlist_id = w.id
      where w.email operator(extensions.=) $1::extensions.citext`,
    [email],
  )
  if (!row) return undefined
  const answers = row.kept ?? (row.proposed && splitName(row.proposed).answers)
  const name = row.name ?? row.proposed?.[NAME_KEY]
  const given = answers || name ? { ...(name ? { [NAME_KEY]: name } : {}), ...answers } : undefined
  return { given, fixed: row.fixed }
}

/**
 * Whether an entry's answers are fixed, on its status row `s`: once it was invited (or joined),
 * the lab chose with them, so the page can no longer change them.
 */
export const ANSWERS_FIXED = `coalesce(s.invited_at is not null or s.status in ('invited', 'joined'), false)`
