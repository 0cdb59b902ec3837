import { isIP } from 'node:net'
import { escapeUnprinted } from '../../contract/clean-text'
import { emailProblem } from '../../server/admin/basics'
import type { EntryFilter } from '../../server/admin/entries'
import { EXIT } from './exit-status'

// Each command loads its own modules when it runs (import() below; esbuild splits them into chunks):
// a usage error reads no driver, `count` no studio server or import code, and the suites start the
// CLI hundreds of times (ADR 109). Only the small shared checks are imported above.
const database = () => import('./with-database')
const serverEnv = async () => (await import('../../server/boot/owner-assembly')).loadServerEnv()

/** What parseArgs read from the command line. */
export interface CliArgs {
  positionals: string[]
  values: {
    since?: string
    out?: string
    'dry-run'?: boolean
    days?: string
    port?: string
    host?: string
    retry?: boolean
    resume?: boolean
    revoke?: boolean
    next?: string
    wait?: boolean
    resend?: boolean
    'skip-preflight'?: boolean
    json?: boolean
    test?: string
    confirm?: boolean
    status?: string[]
    source?: string[]
    answer?: string[]
    domain?: string[]
    tag?: string[]
    'no-tag'?: string[]
    batch?: string[]
    agent?: string[]
    'agent-verified'?: boolean
    map?: string[]
    'map-file'?: string
    column?: string[]
    dates?: string
    timezone?: string
    'ignore-unknown'?: boolean
    by?: string
    'show-addresses'?: boolean
    to?: string
    from?: string
    at?: string
    role?: string
    sort?: string
  }
}

/** The flags that choose entries (entry-filter.ts), and the commands that take them. */
export const FILTER_FLAGS = [
  'status',
  'source',
  'answer',
  'domain',
  'tag',
  'no-tag',
  'batch',
  'since',
  'agent',
  'agent-verified',
] as const
export const FILTERING_COMMANDS = ['list', 'count', 'export', 'invite']

/** The filter flags given, as the owner typed them, for the batch's record and the CLI's words. */
function typedFilter(values: CliArgs['values']): string {
  const typed = (value: string) => (/^[\w.@=:+-]+$/.test(value) ? value : JSON.stringify(value))
  return FILTER_FLAGS.flatMap((flag) => {
    const given = values[flag]
    if (given === true) return [`--${flag}`]
    const all = given === undefined || given === false ? [] : Array.isArray(given) ? given : [given]
    return all.map((value) => `--${flag} ${typed(value)}`)
  }).join(' ')
}

/** The filter the flags ask for (readFilter checks each value), or what is wrong in their words. */
async function readFlags(values: CliArgs['values']) {
  const { readFilter } = await import('../../server/admin/entries')
  return readFilter({
    statuses: values.status,
    since: values.since,
    sources: values.source,
    domains: values.domain,
    answers: values.answer,
    tags: values.tag,
    notTags: values['no-tag'],
    batches: values.batch,
    agents: values.agent,
    agentVerified: values['agent-verified'],
  })
}

/** `--sort COLUMN[:desc]` (list, invite --next): the order, oldest first without it, or what is wrong with it. */
async function readSortFlag(values: CliArgs['values']) {
  const { readSortFlag, OLDEST_FIRST } = await import('../../server/admin/entries')
  return values.sort === undefined ? { sort: OLDEST_FIRST } : readSortFlag(values.sort)
}

/** A command: its exit status (exit-status.ts: 0 done, 1 nothing done, 2 usage or configuration). */
type Command = (args: CliArgs) => Promise<number>

function usageError(message: string): number {
  console.error(`${message}\n\nSee npm run waitlist -- --help`)
  return EXIT.usage
}

async function remove({ positionals }: CliArgs): Promise<number> {
  const emails = positionals.slice(1)
  if (emails.length === 0) return usageError('remove needs the addresses to remove: remove EMAIL…')
  const { removeCommand } = await import('./remove')
  return (await database()).withKeyedDatabase((db) => removeCommand(db, emails))
}

async function unsuppressAddress({ positionals }: CliArgs): Promise<number> {
  const email = positionals[1]
  if (!email) return usageError('unsuppress needs the address to allow again: unsuppress EMAIL')
  const { unsuppressCommand } = await import('./consent')
  return (await database()).withKeyedDatabase((db) => unsuppressCommand(db, email))
}

async function importFile({ positionals, values }: CliArgs): Promise<number> {
  const file = positionals[1]
  if (!file)
    return usageError('import needs the CSV file to read: import FILE [--dry-run] [--column "HEADER=FIELD"]')
  const options = await (await import('./import-options')).readImportOptions(values)
  if ('problem' in options) return usageError(options.problem)
  const { importCommand } = await import('./import')
  return importCommand(file, values['dry-run'] === true, (await database()).withKeyedDatabase, options)
}

/** `tag EMAIL… TAG` and `untag EMAIL… TAG`: the last word is the tag. */
function tagging(untag: boolean): Command {
  return async ({ positionals }) => {
    const [name, ...rest] = positionals
    const given = rest.at(-1)
    const emails = rest.slice(0, -1)
    if (given === undefined || emails.length === 0)
      return usageError(`${name} needs the addresses and the tag, the tag last: ${name} EMAIL… TAG`)
    const read = (await import('../../server/admin/entries')).readTag(given)
    if ('problem' in read) return usageError(`${name}: ${read.problem}`)
    const { tagCommand } = await import('./marks')
    return (await database()).withDatabase((db) => tagCommand(db, { emails, tag: read.tag, untag }))
  }
}

async function note({ positionals }: CliArgs): Promise<number> {
  const [, email, ...words] = positionals
  if (!email || words.length === 0)
    return usageError('note needs the address and the text (quoted; "" clears it): note EMAIL TEXT')
  const read = (await import('../../server/admin/entries')).readNote(words.join(' '))
  if ('problem' in read) return usageError(`note: ${read.problem}`)
  const { noteCommand } = await import('./marks')
  return (await database()).withDatabase((db) => noteCommand(db, email, read.note))
}

async function stats({ values }: CliArgs): Promise<number> {
  const { parseDays, statsCommand } = await import('./stats')
  const days = parseDays(values.days)
  if (days === undefined)
    return usageError(`--days needs a number of days (1-3660) or all, not "${values.days}"`)
  return (await database()).withDatabase((db) => statsCommand(db, days))
}

async function sources({ values }: CliArgs): Promise<number> {
  const days = (await import('./stats')).parseDays(values.days)
  if (days === undefined)
    return usageError(`--days needs a number of days (1-3660) or all, not "${values.days}"`)
  const { sourcesCommand } = await import('./sources')
  return (await database()).withDatabase((db) => sourcesCommand(db, days, values.json === true))
}

async function studio({ values }: CliArgs): Promise<number> {
  const { parsePort, studioCommand } = await import('./studio')
  const { DEFAULT_STUDIO_PORT } = await import('../studio-server/start-studio')
  const port = parsePort(values.port, DEFAULT_STUDIO_PORT)
  if (port === undefined) return usageError(`--port needs a port number (0-65535), not "${values.port}"`)
  const host = values.host ?? '127.0.0.1'
  if (isIP(host) === 0)
    return usageError(`--host needs an IP address such as 127.0.0.1, not "${values.host}"`)
  // The studio's error log masks addresses with the installation's key, as the server's does.
  const { keyEmailMask } = await import('../../server/admin/runtime')
  keyEmailMask((await (await import('./keys')).installationKeys()).secret)
  const env = await serverEnv()
  // Beside the running server, never holding DATA_DIR: it outlives the server's restarts.
  const { openStudioDatabase } = await import('../studio-server/studio-database')
  const studioDatabase = await openStudioDatabase(env)
  try {
    // No mail settings of its own: the running server's, as it recorded them (studio-invite.ts).
    return await studioCommand(studioDatabase, port, host, { fallback: env }, env)
  } finally {
    await studioDatabase.close()
  }
}

/** `invite --test ADDRESS` and `invite --confirm EMAIL…`: one message each, no invitation queued. */
async function inviteOneOff({ positionals, values }: CliArgs): Promise<number | undefined> {
  const emails = positionals.slice(1)
  const { test } = values
  if (test !== undefined) {
    const problem = emailProblem(test)
    if (problem) return usageError(`--test needs the address to send to: ${problem}`)
    const request = { address: test, wait: values.wait === true, env: await serverEnv() }
    const { inviteTestCommand } = await import('./invite-test')
    return (await database()).withDatabase((db) => inviteTestCommand(db, request))
  }
  if (!values.confirm) return undefined
  if (emails.length === 0) return usageError('invite --confirm needs the addresses: invite --confirm EMAIL…')
  const { inviteConfirmCommand } = await import('./invite-confirm')
  return (await database()).withDatabase((db) => inviteConfirmCommand(db, emails))
}

async function invite(args: CliArgs): Promise<number> {
  const oneOff = await inviteOneOff(args)
  if (oneOff !== undefined) return oneOff
  const { positionals, values } = args
  const emails = positionals.slice(1)
  const next = values.next === undefined ? undefined : Number(values.next)
  if (next !== undefined && !(Number.isSafeInteger(next) && next >= 1 && next <= 1_000_000))
    return usageError(`--next needs a number of people (1-1000000), not "${values.next}"`)
  if ((next === undefined) === (emails.length === 0))
    return usageError(
      'invite needs either --next N or the addresses to invite: invite --next 50, invite EMAIL…',
    )
  const filterFlags = typedFilter(values)
  if (next === undefined && filterFlags !== '')
    return usageError(
      `${filterFlags.split(' ')[0]} chooses among the oldest with --next N; invite EMAIL… invites the addresses named`,
    )
  if (next === undefined && values.sort !== undefined)
    return usageError('--sort orders the entries --next N takes; invite EMAIL… invites the addresses named')
  const read = await readFlags(values)
  if ('problem' in read) return usageError(read.problem)
  const order = await readSortFlag(values)
  if ('problem' in order) return usageError(order.problem)
  const resend = values.resend === true
  const refused = await statusRefused(read.filter, resend)
  if (refused) return usageError(refused)
  const request = {
    next,
    emails,
    dryRun: values['dry-run'] === true,
    wait: values.wait === true,
    resend,
    filter: read.filter,
    filterFlags,
    sort: order.sort,
    skipPreflight: values['skip-preflight'] === true,
  }
  const { inviteCommand } = await import('./invite')
  return inviteCommand(await serverEnv(), request, (await database()).withDatabase)
}

/**
 * `invite --next N --status S`: S must be a status --next may invite (waiting; with --resend,
 * invited too), or the flag would be silently narrowed to nobody, or read as a way round the rules
 * (`--status bounced` inviting fifty others).
 */
async function statusRefused(filter: EntryFilter, resend: boolean): Promise<string | undefined> {
  const { invitable } = await import('../../server/admin/sending')
  const allowed = invitable(resend, false)
  const other = filter.statuses?.find((status) => !allowed.includes(status))
  if (other === undefined) return undefined
  const more = resend ? '' : ' (with --resend, invited ones too)'
  return `invite --next picks among ${allowed.join(' and ')} entries${more}, so --status ${other} does not go with it`
}

/**
 * A command over the entries a filter matches (entry-filter.ts): `--status S`, `--source NAME`,
 * `--answer ID=VALUE`, `--domain DOMAIN`, `--batch N` (each repeatable: any of its values), `--tag T`
 * (repeatable: all of them), `--no-tag T` and `--since DATE`.
 */
function filtered(command: (filter: EntryFilter, args: CliArgs) => Promise<number>): Command {
  return async (args) => {
    const read = await readFlags(args.values)
    if ('problem' in read) return usageError(read.problem)
    return command(read.filter, args)
  }
}

async function show({ positionals, values }: CliArgs): Promise<number> {
  const email = positionals[1]
  if (!email) return usageError('show needs the address to show: show EMAIL [--json]')
  const { showCommand } = await import('./show')
  return (await database()).withDatabase((db) => showCommand(db, email, values.json === true))
}

async function funnel({ values }: CliArgs): Promise<number> {
  const { FUNNEL_WINDOW_CHOICES, funnelCommand, parseBy, parseFunnelWindow } = await import('./funnel')
  const by = parseBy(values.by)
  if (by === undefined) return usageError(`--by needs source, batch or agent, not "${values.by}"`)
  // The studio's windows, and its default: the whole list (contract/funnel-windows.ts).
  const window = parseFunnelWindow(values.days)
  if (window === undefined)
    return usageError(
      `funnel --days takes ${FUNNEL_WINDOW_CHOICES}, the studio's windows, not "${values.days}"`,
    )
  return (await database()).withDatabase((db) => funnelCommand(db, by, window, values.json === true))
}

/** `team add EMAIL --role R`, `team role EMAIL R`, `team list|remove|link …`: the words checked, then the change. */
async function team({ positionals, values }: CliArgs): Promise<number> {
  const [, action, email, ...rest] = positionals
  if (values.role !== undefined && action !== 'add')
    return usageError('--role goes with team add: team add EMAIL --role viewer|member|owner')
  if (values.revoke !== undefined && action !== 'link')
    return usageError('--revoke goes with team link: team link EMAIL --revoke')
  const words = action === 'add' ? [action, email, values.role, ...rest] : positionals.slice(1)
  const { teamCommand, teamUsageProblem } = await import('./team')
  const problem = teamUsageProblem(words)
  if (problem) return usageError(problem)
  const badAddress = action === 'add' && emailProblem(email ?? '')
  if (badAddress) return usageError(`team add needs the member's address: ${badAddress}`)
  const env = await serverEnv()
  const revoke = values.revoke === true
  return (await database()).withDatabase((db) => teamCommand(db, env, words as string[], { revoke }))
}

async function audit({ values }: CliArgs): Promise<number> {
  const { auditCommand } = await import('./audit')
  const options = { since: values.since, json: values.json === true }
  return (await database()).withDatabase((db) => auditCommand(db, options))
}

async function deliveries({ values }: CliArgs): Promise<number> {
  const { deliveriesCommand } = await import('./deliveries')
  const options = {
    retry: values.retry ?? false,
    resume: values.resume ?? false,
    showAddresses: values['show-addresses'] ?? false,
  }
  // A relay's or a provider's words, printed, not obeyed (ADR 082).
  const print = (line: string) => console.log(escapeUnprinted(line))
  return (await database()).withDatabase((db) => deliveriesCommand(db, options, print))
}

/** The CLI's commands by name; the usage text in run-command.ts describes each. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  count: filtered(async (filter) => (await import('./list')).countCommand(filter)),
  list: filtered(async (filter, { values }) => {
    const read = await readSortFlag(values)
    if ('problem' in read) return usageError(read.problem)
    return (await import('./list')).listCommand(filter, values.json === true, read.sort)
  }),
  export: filtered(async (filter, { values }) =>
    (await import('./export')).exportCommand(filter, values.out, typedFilter(values)),
  ),
  show,
  funnel,
  keys: async () => (await import('./keys')).keysCommand(),
  url: async () => (await import('./keys')).urlCommand(),
  backup: async ({ positionals, values }) =>
    (await import('./backup')).backupCommand(positionals[1], values.to),
  restore: async ({ values }) => (await import('./backup')).restoreCommand(values.from, values.at),
  remove,
  import: importFile,
  'consent-words': async ({ values }) => {
    const { consentWordsCommand } = await import('./consent')
    return (await database()).withDatabase((db) => consentWordsCommand(db, values.json === true))
  },
  suppressed: async () => {
    const { suppressedCommand } = await import('./consent')
    return (await database()).withKeyedDatabase((db) => suppressedCommand(db))
  },
  unsuppress: unsuppressAddress,
  tag: tagging(false),
  untag: tagging(true),
  note,
  stats,
  sources,
  studio,
  invite,
  preflight: async ({ positionals }) => {
    if (positionals.length > 1) return usageError('preflight takes no arguments: preflight')
    const { preflightCommand } = await import('./preflight')
    return (await database()).withDatabase((db) => preflightCommand(db))
  },
  team,
  audit,
  deliveries,
}
