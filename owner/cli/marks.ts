import { escapeUnprinted } from '../../contract/clean-text'
import type { Database } from '../../server/db/database'
import { type MarkOutcome, setNote, tagEntries, untagEntries } from '../../server/waitlist/admin/entry-marks'
import { plural } from './plural'

type Print = (line: string) => void

/**
 * `tag EMAIL… TAG` and `untag EMAIL… TAG`: the team's tag given to, or taken from, each address
 * listed (entry-marks.ts). Exits 0 when it did all it could, saying which were already so and which
 * are not listed; 1 when none of the addresses is listed, so nothing asked could be done.
 */
export async function tagCommand(
  db: Database,
  request: { emails: readonly string[]; tag: string; untag: boolean },
  print: Print = console.log,
): Promise<number> {
  const { emails, tag, untag } = request
  const outcome: MarkOutcome = untag
    ? await untagEntries(db, emails, tag, 'cli')
    : await tagEntries(db, emails, tag, 'cli')
  const entries = (count: number) => plural(count, 'entry', 'entries')
  for (const email of outcome.unknown)
    console.error(`${escapeUnprinted(email)} is not on the waitlist (in any letter case).`)
  if (outcome.changed.length + outcome.unchanged.length === 0) return 1
  print(
    untag
      ? `Untagged ${entries(outcome.changed.length)} ${tag}.`
      : `Tagged ${entries(outcome.changed.length)} ${tag}.`,
  )
  if (outcome.unchanged.length > 0)
    print(
      `${entries(outcome.unchanged.length)} ${untag ? 'did not have' : 'already had'} it: ` +
        escapeUnprinted(outcome.unchanged.join(', ')),
    )
  return 0
}

/** `note EMAIL TEXT` (`""` clears it): the team's note on the entry. Exits 1 when it is not listed. */
export async function noteCommand(db: Database, email: string, note: string, print: Print = console.log) {
  const outcome = await setNote(db, email, note, 'cli')
  if (!outcome) {
    console.error(`${escapeUnprinted(email)} is not on the waitlist (in any letter case).`)
    return 1
  }
  const who = escapeUnprinted(outcome.email)
  if (!outcome.changed) print(`The note of ${who} was already so; nothing changed.`)
  else print(note === '' ? `Cleared the note of ${who}.` : `Wrote the note of ${who}.`)
  return 0
}
