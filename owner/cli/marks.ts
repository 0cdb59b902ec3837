import { escapeUnprinted } from '../../contract/clean-text'
import { cliActor } from '../../server/admin/audit'
import { MAX_TAGS, type MarkOutcome, setNote, tagEntries, untagEntries } from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'
import { EXIT, exitFor } from './exit-status'
import { plural } from './plural'

type Print = (line: string) => void

/**
 * `tag EMAIL… TAG` and `untag EMAIL… TAG`: the team's tag given to, or taken from, each address
 * listed (entry-marks.ts). Exits 0 when it did all it could, saying which were already so, which
 * are not listed and which carry MAX_TAGS already; 1 when none of the addresses could take it, so
 * nothing asked could be done (ADR 094).
 */
export async function tagCommand(
  db: Database,
  request: { emails: readonly string[]; tag: string; untag: boolean },
  print: Print = console.log,
): Promise<number> {
  const { emails, tag, untag } = request
  const outcome: MarkOutcome = untag
    ? await untagEntries(db, emails, tag, { via: 'cli', actor: cliActor() })
    : await tagEntries(db, emails, tag, { via: 'cli', actor: cliActor() })
  const entries = (count: number) => plural(count, 'entry', 'entries')
  for (const email of outcome.unknown)
    console.error(`${escapeUnprinted(email)} is not on the waitlist (in any letter case).`)
  for (const email of outcome.full)
    console.error(
      `${escapeUnprinted(email)} has ${MAX_TAGS} tags, the most an entry carries: not tagged ${tag}.`,
    )
  const listed = outcome.changed.length + outcome.unchanged.length
  if (listed === 0) return exitFor(listed)
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
  return exitFor(listed)
}

/** `note EMAIL TEXT` (`""` clears it): the team's note on the entry. Exits 1 when it is not listed. */
export async function noteCommand(db: Database, email: string, note: string, print: Print = console.log) {
  const outcome = await setNote(db, email, note, { via: 'cli', actor: cliActor() })
  if (!outcome) {
    console.error(`${escapeUnprinted(email)} is not on the waitlist (in any letter case).`)
    return EXIT.nothingDone
  }
  const who = escapeUnprinted(outcome.email)
  if (!outcome.changed) print(`The note of ${who} was already so; nothing changed.`)
  else print(note === '' ? `Cleared the note of ${who}.` : `Wrote the note of ${who}.`)
  return EXIT.done
}
