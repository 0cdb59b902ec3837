import { cliActor } from '../../server/admin/audit'
import {
  type EntryFilter,
  type EntrySort,
  isEmptyFilter,
  isOldestFirst,
  sortFlag,
} from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'
import {
  clearBatch,
  heldWords,
  type InviteChoice,
  type InvitePreview,
  previewInvite,
  queueInvite,
  type Refusal,
  renderPreview,
  skippedRecord,
} from '../../server/admin/sending'
import type { ServerEnv } from '../../server/boot/owner-assembly'
import { EXIT, exitFor } from './exit-status'
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
  /** With --next: the order it takes them in (`--sort`); oldest first without it. */
  sort?: EntrySort
  /** Send although the preflight fails (the batch's record names the checks skipped). */
  skipPreflight?: boolean
}

/** A dry run of `--next` shows this many of its entries; `list` with the same flags shows them all. */
const SHOWN = 20

type Print = (line: string) => void

const choiceOf = (request: InviteRequest): InviteChoice =>
  request.next === undefined
    ? { emails: request.emails }
    : { next: request.next, filter: request.filter, sort: request.sort }

/** `--sort organisation`, or nothing for the oldest first. */
const sortWords = (sort: EntrySort | undefined) =>
  sort === undefined || isOldestFirst(sort) ? '' : `--sort ${sortFlag(sort)}`

/** Which of them --next takes, as the dry run says it: "the oldest", "the first by --sort organisation". */
const takes = (sort: EntrySort | undefined) =>
  sortWords(sort) === '' ? 'the oldest' : `the first by ${sortWords(sort)}`

/**
 * `invite --next N | EMAIL… [--dry-run] [--wait] [--resend]`, through the invite service the studio
 * calls too (server/waitlist/invite/invite-service.ts). The CLI has no mail settings of its own: it
 * queues, and the running server renders and sends with its SITE_URL, MAIL_FROM and BETA_URL, which
 * it records in the database at start (mail-settings.ts) for the preview.
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

/** The entries a dry run would invite (the first SHOWN of --next's, in its order), and how many --next may pick from. */
function printChosen(preview: InvitePreview, request: InviteRequest, print: Print): void {
  for (const entry of preview.shown) print(`  ${entry.createdAt}  ${entry.email}  (${entry.status})`)
  if (preview.shown.length < preview.count) print(`  … and ${preview.count - preview.shown.length} more`)
  if (request.next === undefined) return
  const which = isEmptyFilter(request.filter ?? {})
    ? `${plural(preview.matching, 'entry', 'entries')} may be invited`
    : `${plural(preview.matching, 'entry', 'entries')} may be invited and match ${request.filterFlags}`
  print(`${which}; --next ${request.next} takes ${takes(request.sort)}.`)
}

/** Why each named address is left alone. */
function printRefusals(
  refused: readonly Refusal[],
  unknown: readonly string[],
  print: Print,
  indent = '',
): void {
  for (const entry of refused) print(`${indent}${entry.email} ${entry.reason}`)
  for (const email of unknown) print(`${indent}${email} is not on the waitlist`)
}

async function dryRun(env: ServerEnv, request: InviteRequest, print: Print): Promise<number> {
  const choice = { choice: choiceOf(request), resend: request.resend }
  // Named addresses are all shown; --next's first SHOWN.
  const show = request.next === undefined ? request.emails.length : SHOWN
  // A dry run writes nothing: the database as it is, or none at all before the first start.
  const preview =
    (await withDatabaseAsIs((db) => previewInvite(db, choice, env, show))) ??
    (await previewInvite(undefined, choice, env, show))
  print(`Dry run: ${plural(preview.count, 'invitation')} would be queued. Nothing was written.`)
  printChosen(preview, request, print)
  printRefusals(preview.refused, preview.unknown, print, '  ')
  for (const note of [preview.noSender, preview.smallBatch, preview.placeholder]) if (note) print(note)
  print(
    `\nThe message${preview.shown[0] ? ` to the first of them` : ' (to a sample address)'}, as the server would send it:\n`,
  )
  if (preview.settingsUnknown) print(`${preview.settingsUnknown}\n`)
  print(renderPreview(preview.mail, preview.from))
  // By how many it would queue, as the real run exits by how many it queued; the placeholder link,
  // which the real run refuses whole, is said above (a dry run is how the owner looks first).
  return exitFor(preview.count)
}

/** How the batch was chosen, as the funnel's batch rows tell it: the flags, never an address. */
function chosenBy(request: InviteRequest): string {
  if (request.next === undefined) return `${plural(request.emails.length, 'address', 'addresses')} named`
  return [
    `--next ${request.next}`,
    request.resend ? '--resend' : '',
    request.filterFlags ?? '',
    sortWords(request.sort),
  ]
    .filter(Boolean)
    .join(' ')
}

async function queue(db: Database, env: ServerEnv, request: InviteRequest, print: Print): Promise<number> {
  const actor = cliActor()
  const clearance = await clearBatch(db, actor.name, request.skipPreflight === true)
  if (!clearance.go) {
    for (const line of heldWords(clearance.lines)) console.error(line)
    return EXIT.nothingDone
  }
  if (clearance.note) print(clearance.note)
  const outcome = await queueInvite(
    db,
    {
      choice: choiceOf(request),
      resend: request.resend,
      actor: { via: 'cli', ...actor },
      chosenBy: `${chosenBy(request)}${skippedRecord(clearance)}`,
    },
    env,
  )
  // The placeholder beta link: the server's configuration, so nothing was tried.
  if ('refusal' in outcome) {
    console.error(outcome.refusal)
    return EXIT.usage
  }
  if (outcome.fewerMatched)
    print(
      `Only ${plural(outcome.queued.length, 'entry', 'entries')} may be invited and match ${request.filterFlags}.`,
    )
  printRefusals(outcome.refused, outcome.unknown, print)
  print(`Queued ${plural(outcome.queued.length, 'invitation')}.`)
  if (outcome.queued.length > 0 && outcome.noSender) print(outcome.noSender)
  if (request.wait && outcome.messageIds.length > 0) await followBatch(db, outcome.messageIds, print)
  // Each address left alone was named with why (printRefusals): a batch with some refused is good.
  return exitFor(outcome.queued.length)
}
