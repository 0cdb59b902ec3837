/**
 * What the preflight says (issue 66): one line per check, each passing, warning, failing or not
 * checked (a resolver that did not answer), with the record it read and what to publish instead.
 * The server writes these to private.preflight_runs; the CLI and `invite` print them.
 */

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'unchecked'

export type CheckName =
  | 'SPF'
  | 'DKIM'
  | 'DMARC'
  | 'DMARC alignment'
  | 'MX'
  | 'one-click unsubscribe'
  /** The asking itself: no server answered, or the check threw. */
  | 'preflight'

export interface CheckLine {
  check: CheckName
  status: CheckStatus
  /** The verdict, in the owner's words. */
  says: string
  /** The record read, as DNS gave it. */
  read?: string
  /** The record to publish instead (or what to change), where the check did not pass. */
  publish?: string
}

/**
 * Warnings pass. A failure holds a batch, and so does a check that could not be made: a resolver's
 * silence proves nothing either way, and it is asked again at the next attempt.
 */
export const passes = (lines: readonly CheckLine[]) =>
  lines.every((line) => line.status === 'pass' || line.status === 'warn')

/** The lines that hold a batch, as `invite` prints them. */
export const holding = (lines: readonly CheckLine[]) =>
  lines.filter((line) => line.status === 'fail' || line.status === 'unchecked')

const WORD: Record<CheckStatus, string> = {
  pass: 'pass',
  warn: 'warn',
  fail: 'FAIL',
  unchecked: 'could not check',
}

/** The line as printed: `FAIL  DMARC: no record at _dmarc.lab.org`, then what was read and what to publish. */
export function formatLine(line: CheckLine): string[] {
  const out = [`${WORD[line.status].padEnd(5)}  ${line.check}: ${line.says}`]
  if (line.read !== undefined) out.push(`       read:    ${line.read}`)
  if (line.publish !== undefined) out.push(`       publish: ${line.publish}`)
  return out
}

export const line = (
  check: CheckName,
  status: CheckStatus,
  says: string,
  more: { read?: string; publish?: string } = {},
): CheckLine => ({ check, status, says, ...more })
