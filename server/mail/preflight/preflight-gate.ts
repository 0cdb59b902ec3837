import { failingChecks } from '../../../contract/failing-checks'
import type { Database } from '../../db/database'
import { isReservedName } from '../messages/reserved-names'
import { readMailSettings } from '../queue/mail-settings'
import { parseMailFrom } from '../transport-config'
import { type CheckLine, formatLine, holding, passes } from './preflight-lines'
import { awaitPreflight, NO_ANSWER, type PreflightRun, recentPass, requestPreflight } from './preflight-runs'

/** A preflight asked of the running server, or why none could be. */
export type PreflightAnswer = { run: PreflightRun } | { noAnswer: CheckLine[] }

/** Asks the running server for a preflight now and waits for its lines (`waitlist preflight`). */
export async function askPreflight(db: Database, requestedBy: string): Promise<PreflightAnswer> {
  const id = await requestPreflight(db, requestedBy)
  const run = await awaitPreflight(db, id)
  return run ? { run } : { noAnswer: [NO_ANSWER] }
}

/**
 * What a batch may do: go (passing, or nothing to check yet), go although it failed (skipped: the
 * checks it skipped, for the batch's record), or wait, with the lines that hold it.
 */
export type BatchClearance = { go: true; note?: string; skipped?: string } | { go: false; lines: CheckLine[] }

/** The failing checks' names, once each: "DMARC alignment, SPF". */
const namesOf = (lines: readonly CheckLine[]) => failingChecks(holding(lines))

/**
 * Before a batch (`invite`, the studio's invite buttons; never a confirmation): a passing preflight
 * for the running server's sender within the hour, else one asked now. A sender on a reserved
 * example domain has no DNS to read and is a trial (start-mail.ts warns of it), so it is not held;
 * nor is a batch queued before any server that sends has started, which has no sender to check.
 */
export async function clearBatch(db: Database, requestedBy: string, skip: boolean): Promise<BatchClearance> {
  const settings = await readMailSettings(db)
  const from = settings.message?.from ? parseMailFrom(settings.message.from) : undefined
  if (!settings.senderConfigured || !from) return { go: true }
  if (isReservedName(from.domain)) return { go: true }
  if (await recentPass(db, settings.message?.from ?? '')) return { go: true }
  const answer = await askPreflight(db, requestedBy)
  const lines = 'run' in answer ? answer.run.lines : answer.noAnswer
  if (passes(lines)) return { go: true, note: 'The preflight passes.' }
  if (!skip) return { go: false, lines: holding(lines) }
  return {
    go: true,
    skipped: namesOf(lines),
    note: `The preflight fails (${namesOf(lines)}); sent anyway (--skip-preflight), and the record says so.`,
  }
}

/**
 * What a batch's record (its chosen-by words, and so its audit line) adds when it went although the
 * preflight failed: the checks skipped, in the same words whether `invite --skip-preflight` or an
 * owner's "Send anyway" in the studio skipped them; the record's actor says who.
 */
export const skippedRecord = (clearance: BatchClearance): string =>
  clearance.go && clearance.skipped ? ` --skip-preflight (failing: ${clearance.skipped})` : ''

/** `invite`'s refusal: the holding lines, and the way past them. */
export function heldWords(lines: readonly CheckLine[]): string[] {
  return [
    'Nothing queued: the deliverability preflight does not pass, so no invitation was sent.',
    ...lines.flatMap(formatLine),
    'Publish what it names and run `waitlist preflight` again, or send anyway with --skip-preflight (recorded).',
  ]
}
