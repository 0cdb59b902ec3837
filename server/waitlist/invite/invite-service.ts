import type { EntryStatus } from '../../../contract/entry-statuses'
import { type Actor, recordAudit } from '../../audit/audit-record'
import type { Database } from '../../db/database'
import {
  type PreviewFallback,
  type PreviewSettings,
  previewInvitation,
  previewSettings,
} from '../../mail/messages/message-preview'
import { isPlaceholderLink, placeholderNote, placeholderRefusal } from '../../mail/messages/reserved-names'
import { NO_MAIL_SETTINGS, NO_SENDER_YET, readMailSettings } from '../../mail/queue/mail-settings'
import { HEALTH_MIN_SENT } from '../../mail/queue/send-health'
import type { OutgoingMail } from '../../mail/smtp-transport'
import { type EntryFilter, isEmptyFilter } from '../admin/entry-filter'
import { type EntrySort, isOldestFirst } from '../admin/entry-sort'
import { invitable, whyNotInvited } from '../entry-status'
import {
  type Candidate,
  countInvitable,
  entriesOf,
  entrySourceAsIs,
  filterReadableAsIs,
  firstWith,
  inviteNamed,
  inviteNext,
  nextStatuses,
  queueTestInvitation,
  sortReadableAsIs,
} from './invitations'

/**
 * The owner's invitations, in one service the CLI (`invite`) and the studio ("Invite the next N",
 * "Invite selected", "Send me a test") both call, so no door can skip a rule of it: the placeholder
 * link (ADR 077: nothing is queued while BETA_URL is a reserved example name), who may be invited
 * (entry-status.ts), batches (one per call, recorded with who asked and how they chose), filters
 * (entry-filter.ts) and the preview (the message as the server would send it, and every reason it
 * might not leave yet). The service queues; the running server renders and sends with the settings
 * it records at start (mail-settings.ts), so no caller needs mail settings of its own.
 */

/**
 * Who asks: the tool, which the funnel's batch rows name, and the person, whom the record names
 * (a team member, or `cli:` and the OS user).
 */
export interface InviteActor extends Actor {
  via: 'cli' | 'studio'
}

/**
 * Whom to invite: the first `next` the filter matches among those who may be invited, oldest first
 * or in `sort`'s order (the studio table's, `--sort`), or the addresses named.
 */
export type InviteChoice =
  | { next: number; filter?: EntryFilter; sort?: EntrySort }
  | { emails: readonly string[] }

export interface InviteRequest {
  choice: InviteChoice
  /** Invited entries again (`--resend`), and bounced ones when named; a pending invitation is replaced. */
  resend: boolean
  actor: InviteActor
  /** How the batch was chosen, in the owner's words (`--next 50 --answer role=Research`); never an address. */
  chosenBy: string
}

/** A named entry invite leaves alone, and why, in the owner's words. */
export interface Refusal {
  email: string
  status: EntryStatus
  reason: string
}

/** The message as the first invitee gets it, with From, the pace, and why it might not leave yet. */
export interface MessagePreview {
  mail: OutgoingMail
  /** The From header; null where no server that sends has recorded one (no SMTP_URL yet). */
  from: string | null
  perMinute: number
  /** Queued, they wait for a server that can send. */
  noSender: string | null
  /** No server has recorded its settings yet: the links are the shell's guess. */
  settingsUnknown: string | null
  /** The beta link is the shipped placeholder: nothing can be queued. */
  placeholder: string | null
}

export interface InvitePreview extends MessagePreview {
  /** How many an invitation would now be queued for. */
  count: number
  /** With `next`: how many may be invited and match the filter, of which `count` are the first. */
  matching: number
  /** The first `show` of those `count`, in the order they are taken (named ones oldest first). */
  shown: Candidate[]
  refused: Refusal[]
  /** Named addresses on no entry. */
  unknown: string[]
  /** Send health judges a window of HEALTH_MIN_SENT messages: a smaller batch may not be judged alone. */
  smallBatch: string | null
}

export type InviteOutcome =
  | { refusal: string }
  | {
      queued: Candidate[]
      /** The outbox rows written, one per queued entry: what `--wait` follows. */
      messageIds: string[]
      refused: Refusal[]
      unknown: string[]
      /** With `next` and a filter: fewer than asked matched, and all of them were taken. */
      fewerMatched: boolean
      perMinute: number
      noSender: string | null
    }

export type TestOutcome =
  | { refused: EntryStatus; reason: string }
  | {
      queued: string
      /** The beta link in it is the shipped placeholder: said, and the test goes anyway. */
      placeholder: string | null
      /** A server with SMTP_URL has started on this database, so it goes now (else once one does). */
      senderConfigured: boolean
    }

/** A sample address for the preview when nobody would be invited. */
const SAMPLE = 'someone@example.com'

const refusalOf = (entry: Candidate): Refusal => ({
  email: entry.email,
  status: entry.status,
  reason: whyNotInvited(entry.status),
})

/**
 * Where the invitations would be sent from and what they would carry: the settings the sending
 * server recorded, read afresh (a restarted server may have new ones), else `fallback`, the shell's
 * SITE_URL, BETA_URL and PORT, as a server started from it would use them.
 */
async function settingsOf(db: Database, fallback: PreviewFallback) {
  const settings = await readMailSettings(db)
  return { settings, preview: previewSettings(settings, fallback) }
}

/** Why nothing may be queued while the beta link is the shipped placeholder (ADR 077), or null. */
const placeholderOf = ({ context }: PreviewSettings) =>
  isPlaceholderLink(context.betaUrl) ? placeholderNote(context.betaUrl) : null

/** The message as `email` would get it, and everything said beside it. */
function messagePreview(
  preview: PreviewSettings,
  senderConfigured: boolean,
  email: string | undefined,
): MessagePreview {
  return {
    mail: previewInvitation(preview, email ?? SAMPLE),
    from: preview.from,
    perMinute: preview.perMinute,
    noSender: senderConfigured ? null : NO_SENDER_YET,
    settingsUnknown: preview.unknown ?? null,
    placeholder: placeholderOf(preview),
  }
}

/** The invitation as the next invitee would get it, addressed to `email` (the studio's preview frame). */
export async function previewMessage(
  db: Database,
  fallback: PreviewFallback,
  email?: string,
): Promise<OutgoingMail> {
  return previewInvitation((await settingsOf(db, fallback)).preview, email ?? SAMPLE)
}

/**
 * Who `request` would invite now and the message they would get, writing nothing and migrating
 * nothing: read from the database as it is (none at all before the first start, or a list from
 * before statuses, where everyone is waiting), so a dry run can be made anywhere. `show`: how many
 * of them to list.
 */
export async function previewInvite(
  db: Database | undefined,
  request: Pick<InviteRequest, 'choice' | 'resend'>,
  fallback: PreviewFallback,
  show: number,
): Promise<InvitePreview> {
  const found = db ? await candidatesAsIs(db, request, show) : undefined
  const { settings, preview } = db
    ? await settingsOf(db, fallback)
    : { settings: NO_MAIL_SETTINGS, preview: previewSettings(NO_MAIL_SETTINGS, fallback) }
  const emails = 'emails' in request.choice ? request.choice.emails : []
  const entries = found?.entries ?? []
  const allowed = invitable(request.resend, 'emails' in request.choice)
  const chosen = entries.filter((entry) => allowed.includes(entry.status))
  const listed = new Set(entries.map((entry) => entry.email.toLowerCase()))
  const count = 'next' in request.choice ? Math.min(request.choice.next, found?.matching ?? 0) : chosen.length
  return {
    count,
    matching: found?.matching ?? chosen.length,
    shown: chosen.slice(0, show),
    refused: entries.filter((entry) => !allowed.includes(entry.status)).map(refusalOf),
    unknown: emails.filter((email) => !listed.has(email.trim().toLowerCase())),
    smallBatch: count > 0 && count < HEALTH_MIN_SENT ? smallBatchNote(count) : null,
    ...messagePreview(preview, settings.senderConfigured, chosen[0]?.email),
  }
}

/**
 * The entries a preview looks at, from the database as it is: the oldest `show` of those `--next`
 * would take and how many match in all, or the named ones (oldest first) whatever their status.
 */
async function candidatesAsIs(
  db: Database,
  { choice, resend }: Pick<InviteRequest, 'choice' | 'resend'>,
  show: number,
): Promise<{ entries: Candidate[]; matching: number } | undefined> {
  const source = await entrySourceAsIs(db)
  const filter = 'next' in choice ? (choice.filter ?? {}) : {}
  if (!source || !(await filterReadableAsIs(db, filter))) return undefined
  const sort = 'next' in choice ? choice.sort : undefined
  if (sort && !isOldestFirst(sort) && !(await sortReadableAsIs(db))) return undefined
  if ('emails' in choice) {
    const entries = await entriesOf(db, choice.emails, source)
    return { entries: entries.sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1)), matching: 0 }
  }
  const statuses = nextStatuses(resend, filter)
  const [entries, matching] = await Promise.all([
    firstWith(db, statuses, Math.min(choice.next, show), source, filter, sort),
    countInvitable(db, statuses, filter, source),
  ])
  return { entries, matching }
}

/**
 * Send health judges a window of at least HEALTH_MIN_SENT messages (ADR 045): a smaller batch on
 * a fresh window can bounce and complain as it likes without pausing anything.
 */
const smallBatchNote = (size: number) =>
  `Sending pauses on bounces or complaints only once ${HEALTH_MIN_SENT} messages are in the send-health ` +
  `window (deliveries shows it): a batch of ${size} is judged with the mail sent before it, or, alone, not at all.`

/**
 * Queues `request` as one batch, or refuses it whole while the beta link the server would put in
 * every message is the shipped placeholder. Named addresses it leaves alone come back with why.
 */
export async function queueInvite(
  db: Database,
  request: InviteRequest,
  fallback: PreviewFallback,
): Promise<InviteOutcome> {
  // The Message-ID's domain is the sending server's MAIL_FROM's, as it recorded it at start.
  const { settings, preview } = await settingsOf(db, fallback)
  const { betaUrl } = preview.context
  if (isPlaceholderLink(betaUrl)) return { refusal: placeholderRefusal(betaUrl) }
  const options = {
    resend: request.resend,
    messageDomain: settings.messageDomain,
    by: request.actor.via,
    chosenBy: request.chosenBy,
    actor: { name: request.actor.name, network: request.actor.network },
  }
  const { choice } = request
  const said = {
    perMinute: settings.message?.perMinute ?? 0,
    noSender: settings.senderConfigured ? null : NO_SENDER_YET,
  }
  if ('next' in choice) {
    const result = await inviteNext(db, choice.next, { ...options, filter: choice.filter, sort: choice.sort })
    // Under the batch's lock every matching entry was taken: fewer than asked is all there were.
    const fewerMatched = !isEmptyFilter(choice.filter ?? {}) && result.queued.length < choice.next
    return { ...result, refused: [], unknown: [], fewerMatched, ...said }
  }
  const named = await inviteNamed(db, choice.emails, options)
  return { ...named, refused: named.refused.map(refusalOf), fewerMatched: false, ...said }
}

/**
 * `invite --test ADDRESS` and the studio's "Send me a test": the next invitee's invitation, queued
 * for the running server to send to ADDRESS, unless the rule refuses any mail to it
 * (invitations.ts). A test may show the placeholder link: it says so, and goes.
 */
export async function sendTest(
  db: Database,
  address: string,
  fallback: PreviewFallback,
  actor: Actor,
): Promise<TestOutcome> {
  const sent = await db.transaction(async (tx) => {
    const queued = await queueTestInvitation(tx, address)
    // The address a test goes to is the asker's own, not an entry's: the record keeps none.
    if ('queued' in queued) await recordAudit(tx, actor, { action: 'test send', count: 1 })
    return queued
  })
  if ('refused' in sent) return sent
  const { settings, preview } = await settingsOf(db, fallback)
  return {
    queued: sent.queued,
    placeholder: placeholderOf(preview),
    senderConfigured: settings.senderConfigured,
  }
}
