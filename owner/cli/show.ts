import { escapeUnprinted, escapeUnprintedJson } from '../../contract/clean-text'
import type { Answers } from '../../contract/signup-questions'
import { entryDetails, entryHistory, type HistoryItem } from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'
import { consentLines } from './consent-lines'

/** One line of the history: when, what, and what came with it (a message's kind and outcome, a detail). */
function historyLine(item: HistoryItem): string {
  const what = item.kind ? `${item.event} (${item.kind}): ${item.outcome ?? ''}` : item.event
  return `  ${item.at}  ${what}${item.by ? ` by ${item.by}` : ''}${item.detail ? `  ${item.detail}` : ''}`
}

/** The answers under their label, one per line: the person's kept ones, or an agent's proposed ones. */
function answerLines(label: 'answers' | 'proposed', answers: Answers): string[] {
  const given = Object.entries(answers)
  if (given.length === 0) return [`  ${label.padEnd(8)} (none)`]
  // A text answer may hold line breaks: one line each here, as given in --json.
  return given.map(
    ([id, value], index) =>
      `  ${(index === 0 ? label : '').padEnd(8)} ${id}: ${escapeUnprinted(value.replace(/\s+/g, ' '))}`,
  )
}

/** The team's note, its lines under its label: the lab's, which the person's own copy shows too (ADR 117). */
function noteLines(note: string | null): string[] {
  if (note === null) return ['  note     (none)']
  return note
    .split('\n')
    .map((line, index) => `  ${index === 0 ? 'note' : ''}`.padEnd(11) + escapeUnprinted(line))
}

/** The details an import kept (header → value), one a line under their label. */
function detailLines(details: Record<string, string>): string[] {
  const given = Object.entries(details)
  if (given.length === 0) return []
  return given.map(
    ([header, value], index) =>
      `  ${(index === 0 ? 'details' : '').padEnd(8)} ${escapeUnprinted(header)}: ${escapeUnprinted(value.replace(/\s+/g, ' '))}`,
  )
}

/**
 * `show EMAIL [--json]`: one entry as a person asking about it would want it told: the address,
 * the person's name, its status, where the signup came from, its answers (the person's, then any an agent proposed that
 * do not count), the details an import kept, the team's tags and note, its consent record (consent-lines.ts), and its history
 * oldest first (entry-history.ts).
 * `--json` prints entryHistory's object as it is. What a stranger stored is printed, not obeyed: a
 * control character in an answer or a bounce's words is shown as its escape (`\x1b`; in JSON,
 * `\u001b`), never sent to the terminal (ADR 082). Exits 1 when the address is not listed.
 */
export async function showCommand(db: Database, email: string, json: boolean): Promise<number> {
  const entry = await entryHistory(db, email)
  if (!entry) {
    console.error(`${email} is not on the waitlist (in any letter case).`)
    return 1
  }
  const details = await entryDetails(db, email)
  if (json) {
    console.log(escapeUnprintedJson(JSON.stringify({ ...entry, details }, null, 2)))
    return 0
  }
  const proposed = Object.keys(entry.proposed).length > 0
  const lines = [
    escapeUnprinted(entry.email),
    `  name     ${escapeUnprinted(entry.name ?? '(none)')}`,
    `  status   ${entry.status}`,
    `  source   ${escapeUnprinted(entry.source ?? '(none kept)')}`,
    ...answerLines('answers', entry.answers),
    ...(proposed
      ? [
          ...answerLines('proposed', entry.proposed),
          "           (an agent's, not counted until the person keeps them on the confirmation page)",
        ]
      : []),
    ...detailLines(details),
    `  tags     ${entry.tags.length > 0 ? entry.tags.join(' ') : '(none)'}`,
    ...noteLines(entry.note),
    ...consentLines(entry.consent),
    '',
    'History, oldest first (UTC):',
    ...entry.history.map((item) => escapeUnprinted(historyLine(item))),
  ]
  console.log(lines.join('\n'))
  return 0
}
