import { isIP } from 'node:net'
import { keyEmailMask } from '../../server/base/log'
import { loadServerEnv } from '../../server/boot/env'
import { emailProblem } from '../../server/waitlist/admin/email-rule'
import { type EntryFilter, readFilter } from '../../server/waitlist/admin/entry-filter'
import { DEFAULT_STUDIO_PORT } from '../studio-server/start-studio'
import { openStudioDatabase } from '../studio-server/studio-database'
import { deliveriesCommand } from './deliveries'
import { exportCommand } from './export-csv'
import { importCommand } from './import'
import { inviteCommand } from './invite'
import { inviteConfirmCommand } from './invite-confirm'
import { inviteTestCommand } from './invite-test'
import { installationKeys, keysCommand, urlCommand } from './keys'
import { countCommand, listCommand } from './list'
import { removeCommand } from './remove'
import { sourcesCommand } from './sources'
import { parseDays, statsCommand } from './stats'
import { parsePort, studioCommand } from './studio'
import { withDatabase } from './with-database'

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
    next?: string
    wait?: boolean
    resend?: boolean
    json?: boolean
    test?: string
    confirm?: boolean
    status?: string[]
    'show-addresses'?: boolean
  }
}

/** A command: its exit code (0 done, 1 failed, 2 bad usage). */
type Command = (args: CliArgs) => Promise<number>

function usageError(message: string): number {
  console.error(`${message}\n\nSee npm run waitlist -- --help`)
  return 2
}

async function remove({ positionals }: CliArgs): Promise<number> {
  const email = positionals[1]
  if (!email) return usageError('remove needs the address to remove: remove EMAIL')
  return withDatabase((db) => removeCommand(db, email))
}

async function importFile({ positionals, values }: CliArgs): Promise<number> {
  const file = positionals[1]
  if (!file) return usageError('import needs the CSV file written by export: import FILE [--dry-run]')
  return importCommand(file, values['dry-run'] === true, withDatabase)
}

async function stats({ values }: CliArgs): Promise<number> {
  const days = parseDays(values.days)
  if (days === undefined)
    return usageError(`--days needs a number of days (1-3660) or all, not "${values.days}"`)
  return withDatabase((db) => statsCommand(db, days))
}

async function sources({ values }: CliArgs): Promise<number> {
  const days = parseDays(values.days)
  if (days === undefined)
    return usageError(`--days needs a number of days (1-3660) or all, not "${values.days}"`)
  return withDatabase((db) => sourcesCommand(db, days, values.json === true))
}

async function studio({ values }: CliArgs): Promise<number> {
  const port = parsePort(values.port, DEFAULT_STUDIO_PORT)
  if (port === undefined) return usageError(`--port needs a port number (0-65535), not "${values.port}"`)
  const host = values.host ?? '127.0.0.1'
  if (isIP(host) === 0)
    return usageError(`--host needs an IP address such as 127.0.0.1, not "${values.host}"`)
  // The studio's error log masks addresses with the installation's key, as the server's does.
  keyEmailMask((await installationKeys()).secret)
  const env = loadServerEnv()
  // Beside the running server, never holding DATA_DIR: it outlives the server's restarts.
  const database = await openStudioDatabase(env)
  try {
    // No mail settings of its own: the running server's, as it recorded them (studio-invite.ts).
    return await studioCommand(database, port, host, { fallback: env })
  } finally {
    await database.close()
  }
}

/** `invite --test ADDRESS` and `invite --confirm EMAIL…`: one message each, no invitation queued. */
function inviteOneOff({ positionals, values }: CliArgs): Promise<number> | undefined {
  const emails = positionals.slice(1)
  const { test } = values
  if (test !== undefined) {
    const problem = emailProblem(test)
    if (problem) return Promise.resolve(usageError(`--test needs the address to send to: ${problem}`))
    const request = { address: test, wait: values.wait === true, env: loadServerEnv() }
    return withDatabase((db) => inviteTestCommand(db, request))
  }
  if (!values.confirm) return undefined
  if (emails.length === 0)
    return Promise.resolve(usageError('invite --confirm needs the addresses: invite --confirm EMAIL…'))
  return withDatabase((db) => inviteConfirmCommand(db, emails))
}

async function invite(args: CliArgs): Promise<number> {
  const oneOff = inviteOneOff(args)
  if (oneOff) return oneOff
  const { positionals, values } = args
  const emails = positionals.slice(1)
  const next = values.next === undefined ? undefined : Number(values.next)
  if (next !== undefined && !(Number.isSafeInteger(next) && next >= 1 && next <= 1_000_000))
    return usageError(`--next needs a number of people (1-1000000), not "${values.next}"`)
  if ((next === undefined) === (emails.length === 0))
    return usageError(
      'invite needs either --next N or the addresses to invite: invite --next 50, invite EMAIL…',
    )
  const request = {
    next,
    emails,
    dryRun: values['dry-run'] === true,
    wait: values.wait === true,
    resend: values.resend === true,
  }
  return inviteCommand(loadServerEnv(), request, withDatabase)
}

/** A command over the entries a filter matches (entry-filter.ts): `--status S`… and `--since DATE`. */
function filtered(command: (filter: EntryFilter, args: CliArgs) => Promise<number>): Command {
  return async (args) => {
    const read = readFilter({ statuses: args.values.status, since: args.values.since })
    if ('problem' in read) return usageError(read.problem)
    return command(read.filter, args)
  }
}

/** The CLI's commands by name; the usage text in waitlist-cli.ts describes each. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  count: filtered((filter) => countCommand(filter)),
  list: filtered((filter) => listCommand(filter)),
  export: filtered((filter, { values }) => exportCommand(filter, values.out)),
  keys: () => keysCommand(),
  url: () => urlCommand(),
  remove,
  import: importFile,
  stats,
  sources,
  studio,
  invite,
  deliveries: ({ values }) =>
    withDatabase((db) =>
      deliveriesCommand(
        db,
        {
          retry: values.retry ?? false,
          resume: values.resume ?? false,
          showAddresses: values['show-addresses'] ?? false,
        },
        console.log,
      ),
    ),
}
