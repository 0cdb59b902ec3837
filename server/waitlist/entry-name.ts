import type { Answers } from '../../contract/signup-questions'
import { nameQuestion } from '../../contract/site-config'
import type { Queryable } from '../db/database'

/**
 * A person's name (private.entry_names, migration 20261207500000): beside the entry, not on it, so
 * the page's insert writes nothing more. It comes from an import, from the confirmation page's
 * "Your name" (the person's own, kept), or from an agent's `name` argument, which is proposed as
 * the agent's answers are (private.proposed_answers, under the key `name`) until the person keeps
 * it. The doors check it with the answers (contract/signup-questions.ts checkAnswers, with
 * nameQuestion first), and it travels with them as the key `name` until it is stored here.
 */

export const NAME_KEY = nameQuestion.id

/** The name among checked answers, and the answers without it. */
export function splitName(given: Answers): { name: string | undefined; answers: Answers } {
  const { [NAME_KEY]: name, ...answers } = given
  return { name, answers }
}

/**
 * The person's name as they gave it: kept, or none at all when they cleared the field (what is
 * posted is what is kept, ADR 084). An imported first name stays while the name is the same.
 */
export async function keepName(tx: Queryable, waitlistId: string, name: string | undefined): Promise<void> {
  if (name === undefined) {
    await tx.run('delete from private.entry_names where waitlist_id = $1::bigint', [waitlistId])
    return
  }
  await tx.run(
    `insert into private.entry_names as n (waitlist_id, name) values ($1::bigint, $2)
     on conflict (waitlist_id) do update
       set name = excluded.name, updated_at = now(),
           given_name = case when n.name = excluded.name then n.given_name end
       where n.name is distinct from excluded.name`,
    [waitlistId, name],
  )
}
