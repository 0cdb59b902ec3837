import { type Database, keyEmailMask, maskEmails } from '../../server/admin/runtime'
import {
  forgotten,
  listUndeliveredMail,
  listUndeliveredWebhooks,
  refusalsSinceLastBatch,
  retryFailedMail,
  retryFailedWebhooks,
  webhooksEnabled,
} from '../../server/admin/sending'
import { keySourcesOf, loadApiKeys } from '../../server/admin/settings'
import { loadServerEnv } from '../../server/boot/owner-assembly'
import { plural } from './plural'
import { printSendHealth, resumeCommand } from './send-health-report'

type Print = (line: string) => void

/**
 * `deliveries`: the signup notifications not yet made (pending, then failed), the mail not yet
 * delivered (pending, failed), with the full address (this is the owner's own terminal, never a
 * log), then who bounced or complained since the last invitations were queued, masked as the log
 * masks them unless `showAddresses` (a list someone may paste into a ticket). `--retry` puts the
 * failed ones back in the queue with a fresh 24 h window; a running server sends them. Bounced
 * mail is never retried: the server refused the address. First, send health (ADR 045): the bounce
 * and complaint rates, and why sending paused, if it did; `--resume` resumes it.
 */
export async function deliveriesCommand(
  db: Database,
  options: { retry: boolean; resume?: boolean; showAddresses?: boolean },
  print: Print,
): Promise<number> {
  if (options.resume) return resumeCommand(db, print)
  if (options.retry) {
    const webhooks = await retryFailedWebhooks(db)
    const mail = await retryFailedMail(db)
    print(
      webhooks + mail === 0
        ? 'No failed deliveries to retry.'
        : `Re-queued ${plural(webhooks, 'failed delivery', 'failed deliveries')} and ${plural(mail, 'failed message')}; ` +
            'a running server sends them within seconds (SIGNUP_WEBHOOK_URL for the first, SMTP_URL for the second).',
    )
    return 0
  }
  await printSendHealth(db, print)
  await printWebhooks(db, print)
  await printMail(db, print)
  await printRefusals(db, options.showAddresses === true, print)
  return 0
}

async function printWebhooks(db: Database, print: Print): Promise<void> {
  const rows = await listUndeliveredWebhooks(db)
  const pending = rows.filter((row) => row.status === 'pending').length
  const enabled = await webhooksEnabled(db)
  print(
    `${pending} pending, ${rows.length - pending} failed. Notifications are ${enabled ? 'on' : 'off'} for this database` +
      (enabled ? '.' : ' (no server with SIGNUP_WEBHOOK_URL has started on it since).'),
  )
  for (const row of rows) {
    const next = row.status === 'pending' ? `  next ${row.runAt}` : ''
    const error = row.lastError ? `  last error: ${row.lastError}` : ''
    const event = row.event === 'waitlist.signup' ? '' : `  ${row.event}`
    const email = forgotten(row) ? '(address forgotten)' : row.email
    print(
      `${row.status.padEnd(7)}  ${row.createdAt}  ${email}${event}  attempts ${row.attempts}${next}${error}`,
    )
  }
  if (rows.some((row) => row.status === 'failed' && !forgotten(row)))
    print('Retry the failed ones with: npm run waitlist -- deliveries --retry')
  if (rows.some(forgotten))
    print(
      'A failed entry.erased keeps no address and is not sent again: erase that person from the receiver by hand.',
    )
}

async function printMail(db: Database, print: Print): Promise<void> {
  // Bounced messages are told below, with every other way an address refused the mail.
  const rows = (await listUndeliveredMail(db)).filter((row) => row.status !== 'bounced')
  const count = (status: string) => rows.filter((row) => row.status === status).length
  print(`Mail: ${count('pending')} pending, ${count('failed')} failed.`)
  for (const row of rows) {
    const next = row.status === 'pending' ? `  next ${row.runAt}` : ''
    const error = row.lastError ? `  last error: ${row.lastError}` : ''
    print(
      `${row.status.padEnd(7)}  ${row.kind.padEnd(12)}  ${row.queuedAt}  ${row.email}  attempts ${row.attempts}${next}${error}`,
    )
  }
  if (count('failed') > 0) print('Retry the failed messages with: npm run waitlist -- deliveries --retry')
}

// Enough to see who, and what the relay said; `list --status` has them all.
const SHOWN_REFUSALS = 50

/**
 * Who bounced or complained since the last invitations were queued, with the relay's last words
 * for each. Send health counts the same bounces and complaints by message, so after one batch the
 * two agree; only a third soft bounce in a row is counted here alone. The outbox's own `bounced`
 * (SMTP refusals only) is no longer printed as a total beside them: it read "0 bounced" under
 * "hard bounces 3".
 */
async function printRefusals(db: Database, showAddresses: boolean, print: Print): Promise<void> {
  const report = await refusalsSinceLastBatch(db, SHOWN_REFUSALS)
  const since = report.since ? `since the last invitations were queued (${report.since})` : 'so far'
  print(`Refused ${since}: ${report.bounced} bounced, ${report.complained} complained.`)
  if (report.entries.length === 0) return
  if (!showAddresses) await maskLikeTheLog(db)
  for (const entry of report.entries) {
    const error = entry.lastError ? `  last error: ${entry.lastError}` : ''
    const line = `${entry.status.padEnd(10)}  ${entry.at}  ${entry.email}${error}`
    print(showAddresses ? line : maskEmails(line))
  }
  const more = report.bounced + report.complained - report.entries.length
  if (more > 0) print(`… and ${more} more: npm run waitlist -- list --status bounced --status complained`)
  if (!showAddresses)
    print('Addresses are masked as the server log masks them; --show-addresses prints them.')
  if (report.bounced > 0)
    print('Bounced addresses get no more mail; npm run waitlist -- invite EMAIL --resend tries one again.')
}

/** The installation's mask, so an address reads here as it does in the server's log. */
async function maskLikeTheLog(db: Database): Promise<void> {
  keyEmailMask((await loadApiKeys({ ...keySourcesOf(loadServerEnv()), db })).secret)
}
