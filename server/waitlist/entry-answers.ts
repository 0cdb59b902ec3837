import type { Answers } from '../../contract/signup-questions'
import type { Queryable } from '../db/database'

/**
 * An entry's answers to the lab's optional questions (private.entry_answers, owner-only): personal
 * data, never readable with a public key, erased with the entry (`remove`, the confirmation's
 * expiry). Written whole: answering again replaces the answers, and none at all leaves no row.
 */
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

/** The answers of the entry with this address (any letter case), or undefined when it has none. */
export async function answersOf(db: Queryable, email: string): Promise<Answers | undefined> {
  const [row] = await db.query<{ answers: Answers }>(
    `select a.answers from private.entry_answers a join public.waitlist w on w.id = a.waitlist_id
      where w.email operator(extensions.=) $1::extensions.citext`,
    [email],
  )
  return row?.answers
}
