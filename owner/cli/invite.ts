import type { ServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import { previewInvitation, previewSettings, renderPreview } from '../../server/mail/messages/message-preview'
import {
  isPlaceholderLink,
  placeholderNote,
  placeholderRefusal,
} from '../../server/mail/messages/reserved-names'
import { NO_MAIL_SETTINGS, NO_SENDER_YET, readMailSettings } from '../../server/mail/queue/mail-settings'
import { HEALTH_MIN_SENT } from '../../server/mail/queue/send-health'
import { type EntryFilter, isEmptyFilter } from '../../server/waitlist/admin/entry-filter'
import { invitable, whyNotInvited } from '../../server/waitlist/entry-status'
import {
  type Candidate,
  countInvitable,
  entriesOf,
  entrySourceAsIs,
  filterReadableAsIs,
  inviteNamed,
  inviteNext,
  nextStatuses,
  oldestWith,
  type QueuedInvites,
} from '../../server/waitlist/invite/invitations'
import { followBatch } from './follow-batch'
import { plural } from './plural'
import { withDatabaseAsIs } from './with-database'

export interface InviteRequest {
  /** --next N, else the addresses. */
  next?: number
  emails: string[]
  dryRun: boolean
  wait: boolean
  resend: boolean
  /** With --next: which entries it picks among (entry-filter.ts); none, every waiting one. */
  filter?: EntryFilter
  /** The filter's flags as the owner typed them (`--answer role=Research --source hn`). */
  filterFlags?: string
}

/** How the batch was chosen, as the funnel's batch rows tell it: the flags, never an address. */
function chosenBy(request: InviteRequest): string {
  if (request.next === undefined) return `${plural(request.emails.length, 'address', 'addresses')} named`
  return [`--next ${request.next}`, request.resend ? '--resend' : '', request.filterFlags ?? '']
    .filter(Boolean)
    .join(' ')
}

/** A dry run of `--next` shows this many of its entries; `list` with the same flags shows them all. */
const SHOWN = 20

type Print = (line: string) => void

/**
 * `invite --next N | EMAIL… [--dry-run] [--wait] [--resend]`. The CLI has no mail settings of its
 * own: it queues, and the running server renders and sends with its SITE_URL, MAIL_FROM and
 * BETA_URL, which it records in the database at start (mail-settings.ts) for the preview.
 */
export async function inviteCommand(
  env: ServerEnv,
  request: InviteRequest,
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>,
  print: Print = console.log,
): Promise<number> {
  if (request.dryRun) return dryRun(env, request, print)
  return withDatabase((db) => queue(db, env, request, print))
}

/**
 * Who a dry run would invite, from the database as it is: never migrated (a pending migration
 * stays pending), and nobody at all where there is no list yet.
 */
async function candidatesAsIs(
  db: Database,
  request: InviteRequest,
): Promise<{ entries: Candidate[]; matching: number }> {
  const source = await entrySourceAsIs(db)
  const filter = request.filter ?? {}
  if (!source || !(await filterReadableAsIs(db, filter))) return { entries: [], matching: 0 }
  if (request.next === undefined) return { entries: await entriesOf(db, request.emails, source), matching: 0 }
  const statuses = nextStatuses(request.resend, filter)
  return {
    entries: await oldestWith(db, statuses, request.next, source, filter),
    matching: await countInvitable(db, statuses, filter, source),
  }
}

/** The entries a dry run of `--next` would invite: the first SHOWN of them, and how many match. */
function printChosen(chosen: Candidate[], matching: number, request: InviteRequest, print: Print): void {
  const named = request.next === undefined
  const shown = named ? chosen : chosen.slice(0, SHOWN)
  for (const entry of shown) print(`  ${entry.createdAt}  ${entry.email}  (${entry.status})`)
  if (shown.length < chosen.length) print(`  … and ${chosen.length - shown.length} more`)
  if (named) return
  const which = isEmptyFilter(request.filter ?? {})
    ? `${plural(matching, 'entry', 'entries')} may be invited`
    : `${plural(matching, 'entry', 'entries')} may be invited and match ${request.filterFlags}`
  print(`${which}; --next ${request.next} takes the oldest.`)
}

async function dryRun(env: ServerEnv, request: InviteRequest, print: Print): Promise<number> {
  const named = request.next === undefined
  // A dry run writes nothing: the database as it is, or none at all before the first start.
  const found = await withDatabaseAsIs(async (db) => ({
    ...(await candidatesAsIs(db, request)),
    settings: await readMailSettings(db),
  }))
  const entries = found?.entries ?? []
  const settings = found?.settings ?? NO_MAIL_SETTINGS
  const allowed = invitable(request.resend, named)
  const chosen = entries.filter((entry) => allowed.includes(entry.status))
  print(`Dry run: ${plural(chosen.length, 'invitation')} would be queued. Nothing was written.`)
  printChosen(chosen, found?.matching ?? 0, request, print)
  if (named) reportRefusals(entries, request.emails, allowed, print)
  if (!settings.senderConfigured) print(NO_SENDER_YET)
  if (chosen.length > 0 && chosen.length < HEALTH_MIN_SENT) print(smallBatchNote(chosen.length))
  const preview = previewSettings(settings, env)
  const { betaUrl } = preview.context
  if (isPlaceholderLink(betaUrl)) print(placeholderNote(betaUrl))
  const sample = chosen[0]?.email ?? 'someone@example.com'
  print(
    `\nThe message${chosen[0] ? ` to the first of them` : ' (to a sample address)'}, as the server would send it:\n`,
  )
  if (preview.unknown) print(`${preview.unknown}\n`)
  print(renderPreview(previewInvitation(preview, sample), preview.from))
  return 0
}

/**
 * Send health judges a window of at least HEALTH_MIN_SENT messages (ADR 045): a smaller batch on
 * a fresh window can bounce and complain as it likes without pausing anything.
 */
const smallBatchNote = (size: number) =>
  `Sending pauses on bounces or complaints only once ${HEALTH_MIN_SENT} messages are in the send-health ` +
  `window (deliveries shows it): a batch of ${size} is judged with the mail sent before it, or, alone, not at all.`

function reportRefusals(entries: Candidate[], emails: string[], allowed: string[], print: Print): void {
  const found = new Set(entries.map((entry) => entry.email.toLowerCase()))
  for (const entry of entries)
    if (!allowed.includes(entry.status)) print(`  ${entry.email} ${whyNotInvited(entry.status)}`)
  for (const email of emails)
    if (!found.has(email.trim().toLowerCase())) print(`  ${email} is not on the waitlist`)
}

async function queue(db: Database, env: ServerEnv, request: InviteRequest, print: Print): Promise<number> {
  // The Message-ID's domain is the sending server's MAIL_FROM's, as it recorded it at start.
  const settings = await readMailSettings(db)
  // The link the server would put in every message: never the shipped placeholder.
  const { betaUrl } = previewSettings(settings, env).context
  if (isPlaceholderLink(betaUrl)) {
    console.error(placeholderRefusal(betaUrl))
    return 1
  }
  const options = {
    resend: request.resend,
    messageDomain: settings.messageDomain,
    by: 'cli' as const,
    chosenBy: chosenBy(request),
  }
  let result: QueuedInvites
  let refusedNamed = false
  if (request.next !== undefined) {
    result = await inviteNext(db, request.next, { ...options, filter: request.filter })
    // Under the batch's lock every matching entry was taken: fewer than asked is all there were.
    if (result.queued.length < request.next && !isEmptyFilter(request.filter ?? {}))
      print(
        `Only ${plural(result.queued.length, 'entry', 'entries')} may be invited and match ${request.filterFlags}.`,
      )
  } else {
    const named = await inviteNamed(db, request.emails, options)
    result = named
    for (const entry of named.refused) print(`${entry.email} ${whyNotInvited(entry.status)}`)
    for (const email of named.unknown) print(`${email} is not on the waitlist`)
    refusedNamed = named.unknown.length > 0 || named.refused.some((entry) => entry.status !== 'invited')
  }
  print(`Queued ${plural(result.queued.length, 'invitation')}.`)
  if (result.queued.length > 0 && !settings.senderConfigured) print(NO_SENDER_YET)
  if (request.wait && result.messageIds.length > 0) await followBatch(db, result.messageIds, print)
  return refusedNamed ? 1 : 0
}
