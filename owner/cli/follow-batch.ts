import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '../../server/admin/runtime'
import { type BatchProgress, batchProgress } from '../../server/admin/sending'

const progressLine = (p: BatchProgress, total: number) =>
  `Sent ${p.sent} of ${total}: ${p.pending} pending, ${p.bounced} bounced, ${p.failed} failed` +
  (p.cancelled ? `, ${p.cancelled} cancelled (unsubscribed meanwhile)` : '')

// Long enough to say something once if nothing moves, short enough for a person watching.
const QUIET_HINT_MS = 30_000

/**
 * `invite --wait`: a progress line until no message of the batch is pending (sent, bounced, failed
 * for good, or cancelled). Ctrl-C stops watching; the sending goes on in the server.
 */
export async function followBatch(
  db: Database,
  ids: readonly string[],
  print: (line: string) => void,
  pollMs = 1_000,
): Promise<BatchProgress> {
  const tty = process.stdout.isTTY
  let last = ''
  let changedAt = Date.now()
  let hinted = false
  for (;;) {
    const progress = await batchProgress(db, ids)
    const line = progressLine(progress, ids.length)
    if (line !== last) {
      if (tty) process.stdout.write(`\r${line}\u001b[K`)
      else print(line)
      last = line
      changedAt = Date.now()
    }
    if (progress.pending === 0) {
      if (tty) process.stdout.write('\n')
      return progress
    }
    if (!hinted && Date.now() - changedAt > QUIET_HINT_MS) {
      print(
        `${tty ? '\n' : ''}Nothing has moved for 30 s: is a server with SMTP_URL running? (Ctrl-C stops watching; the batch stays queued.)`,
      )
      hinted = true
    }
    await sleep(pollMs)
  }
}
