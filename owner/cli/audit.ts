import { escapeUnprinted, escapeUnprintedJson } from '../../contract/clean-text'
import { type AuditEntry, readAudit } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'

type Print = (line: string) => void

// Read in pages, so a long record is printed in bounded memory.
const PAGE = 1000
/** Since the beginning, unless told otherwise. */
const EPOCH = '1970-01-01T00:00:00Z'

function line(entry: AuditEntry): string {
  const count = entry.count > 0 ? `  (${entry.count})` : ''
  const times = entry.times > 1 ? `  ×${entry.times}` : ''
  const from = entry.from ? `  from ${entry.from}` : ''
  return escapeUnprinted(
    `${entry.at}  ${entry.actor}  ${entry.action}${entry.detail ? `  ${entry.detail}` : ''}${count}${times}${from}`,
  )
}

/**
 * `audit [--since DATE] [--json]`: the record of who did what, oldest first: every change made in
 * the team studio, the local studio or the CLI, every sign-in and failed sign-in, every refused
 * request (ADR 099, 106). A folded line says how many times it happened (`×60`). --json prints one
 * object per line: at, actor, action, detail, count, from, times.
 */
export async function auditCommand(
  db: Database,
  options: { since?: string; json: boolean },
  print: Print = console.log,
): Promise<number> {
  let after: string | undefined
  let printed = 0
  do {
    const page = await readAudit(db, { since: options.since ?? EPOCH, after, limit: PAGE })
    for (const entry of page.lines)
      print(options.json ? escapeUnprintedJson(JSON.stringify(entry)) : line(entry))
    printed += page.lines.length
    after = page.next ?? undefined
  } while (after !== undefined)
  if (printed === 0 && !options.json) print('Nothing recorded yet.')
  return 0
}
