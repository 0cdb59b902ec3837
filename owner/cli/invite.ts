import type { ServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import {
  loadMailTransportConfig,
  type MailTransportConfig,
  NO_SMTP_URL,
} from '../../server/mail/mail-secrets'
import { invitable, whyNotInvited } from '../../server/waitlist/invitations/entry-status'
import { readMailSettings } from '../../server/waitlist/invitations/mail-settings'
import {
  type Candidate,
  entriesOf,
  entrySourceAsIs,
  inviteNamed,
  inviteNext,
  oldestWith,
  type QueuedInvites,
} from '../../server/waitlist/invitations/queue-invitations'
import { withDatabaseAsIs } from './database-as-is'
import { followBatch } from './follow-batch'
import { previewContext, previewInvitation, renderPreview } from './message-preview'

export interface InviteRequest {
  /** --next N, else the addresses. */
  next?: number
  emails: string[]
  dryRun: boolean
  wait: boolean
  resend: boolean
}

type Print = (line: string) => void
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** `invite --next N | EMAIL… [--dry-run] [--wait] [--resend]`. */
export async function inviteCommand(
  env: ServerEnv,
  request: InviteRequest,
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>,
  print: Print = console.log,
): Promise<number> {
  const mail = await loadMailTransportConfig(env)
  if (!mail && !request.dryRun) {
    console.error(NO_SMTP_URL)
    return 1
  }
  if (request.dryRun) return dryRun(env, mail, request, print)
  return withDatabase((db) => queue(db, mail, request, print))
}

/**
 * Who a dry run would invite, from the database as it is: never migrated (a pending migration
 * stays pending), and nobody at all where there is no list yet.
 */
async function candidatesAsIs(db: Database, request: InviteRequest): Promise<Candidate[]> {
  const source = await entrySourceAsIs(db)
  if (!source) return []
  if (request.next === undefined) return entriesOf(db, request.emails, source)
  return oldestWith(db, invitable(request.resend, false), request.next, source)
}

async function dryRun(
  env: ServerEnv,
  mail: MailTransportConfig,
  request: InviteRequest,
  print: Print,
): Promise<number> {
  const named = request.next === undefined
  // A dry run writes nothing: the database as it is, or none at all before the first start.
  const entries = (await withDatabaseAsIs((db) => candidatesAsIs(db, request))) ?? []
  const allowed = invitable(request.resend, named)
  const chosen = entries.filter((entry) => allowed.includes(entry.status))
  print(`Dry run: ${plural(chosen.length, 'invitation')} would be queued. Nothing was written.`)
  for (const entry of chosen) print(`  ${entry.createdAt}  ${entry.email}  (${entry.status})`)
  if (named) reportRefusals(entries, request.emails, allowed, print)
  if (!mail) print(NO_SMTP_URL.replace(', so nothing was queued', ': a real run would stop here'))
  const sample = chosen[0]?.email ?? 'someone@example.com'
  const from = mail?.from.header ?? '(MAIL_FROM)'
  print(`\nThe message${chosen[0] ? ` to the first of them` : ' (to a sample address)'}:\n`)
  print(
    renderPreview(previewInvitation(previewContext(env), sample, mail?.from.domain ?? 'example.com'), from),
  )
  return 0
}

function reportRefusals(entries: Candidate[], emails: string[], allowed: string[], print: Print): void {
  const found = new Set(entries.map((entry) => entry.email.toLowerCase()))
  for (const entry of entries)
    if (!allowed.includes(entry.status)) print(`  ${entry.email} ${whyNotInvited(entry.status)}`)
  for (const email of emails)
    if (!found.has(email.trim().toLowerCase())) print(`  ${email} is not on the waitlist`)
}

async function queue(
  db: Database,
  mail: MailTransportConfig,
  request: InviteRequest,
  print: Print,
): Promise<number> {
  const options = { resend: request.resend, messageDomain: mail?.from.domain ?? 'localhost' }
  let result: QueuedInvites
  let refusedNamed = false
  if (request.next !== undefined) {
    result = await inviteNext(db, request.next, options)
  } else {
    const named = await inviteNamed(db, request.emails, options)
    result = named
    for (const entry of named.refused) print(`${entry.email} ${whyNotInvited(entry.status)}`)
    for (const email of named.unknown) print(`${email} is not on the waitlist`)
    refusedNamed = named.unknown.length > 0 || named.refused.some((entry) => entry.status !== 'invited')
  }
  print(`Queued ${plural(result.queued.length, 'invitation')}.`)
  const settings = await readMailSettings(db)
  if (result.queued.length > 0 && !settings.senderConfigured)
    print('No server with SMTP_URL has started on this database yet: they are sent once one does.')
  if (request.wait && result.messageIds.length > 0) await followBatch(db, result.messageIds, print)
  return refusedNamed ? 1 : 0
}
