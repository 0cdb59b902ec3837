import type { Database } from '../../server/db/database'
import { listUndelivered, retryFailed } from '../../server/waitlist/notifications/delivery-queue'
import { notificationsEnabled } from '../../server/waitlist/notifications/outbox-sql'

/**
 * `deliveries`: the signup notifications not yet made (pending, then failed), with the full
 * address (this is the owner's own terminal, never a log). `--retry` puts the failed ones back in
 * the queue with a fresh 24 h window; a running server with SIGNUP_WEBHOOK_URL sends them.
 */
export async function deliveriesCommand(
  db: Database,
  options: { retry: boolean },
  print: (line: string) => void,
): Promise<number> {
  if (options.retry) {
    const requeued = await retryFailed(db)
    print(
      requeued === 0
        ? 'No failed deliveries to retry.'
        : `Re-queued ${requeued} failed ${requeued === 1 ? 'delivery' : 'deliveries'}; a server with SIGNUP_WEBHOOK_URL sends ${requeued === 1 ? 'it' : 'them'} within seconds.`,
    )
    return 0
  }
  const rows = await listUndelivered(db)
  const pending = rows.filter((row) => row.status === 'pending').length
  const enabled = await notificationsEnabled(db)
  print(
    `${pending} pending, ${rows.length - pending} failed. Notifications are ${enabled ? 'on' : 'off'} for this database` +
      (enabled ? '.' : ' (no server with SIGNUP_WEBHOOK_URL has started on it since).'),
  )
  for (const row of rows) {
    const next = row.status === 'pending' ? `  next ${row.runAt}` : ''
    const error = row.lastError ? `  last error: ${row.lastError}` : ''
    print(`${row.status.padEnd(7)}  ${row.createdAt}  ${row.email}  attempts ${row.attempts}${next}${error}`)
  }
  if (rows.length > pending) print('Retry the failed ones with: npm run waitlist -- deliveries --retry')
  return 0
}
