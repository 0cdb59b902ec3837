import { isIP } from 'node:net'
import { parseArgs } from 'node:util'
import { ConfigError, loadDotEnvFile, loadServerEnv } from '../../server/boot/env'
import { keyEmailMask } from '../../server/boot/log'
import { StartupError } from '../../server/boot/startup-error'
import type { Database } from '../../server/db/database'
import { runningClusterTcpUrl } from '../../server/db/embedded/embedded-cluster'
import { openDatabase } from '../../server/db/open-database'
import { loadApiKeys } from '../../server/http/keys'
import {
  countEntries as countListOf,
  type Entry,
  readEntries as readEntriesOf,
} from '../../server/waitlist/admin/waitlist-admin'
import { DEFAULT_STUDIO_PORT, StudioPortInUseError } from '../studio-server/start-studio'
import { deliveriesCommand } from './deliveries'
import { exportCsv } from './export-csv'
import { importCommand } from './import'
import { ImportFileError } from './read-import-file'
import { removeCommand } from './remove'
import { parseDays, statsCommand } from './stats'
import { parsePort, studioCommand } from './studio'
import { writePrivateFile } from './write-private-file'

const USAGE = `Usage: npm run waitlist -- <command> [options]

Reads the waitlist straight from the database the server uses: DATABASE_URL, else the embedded
PostgreSQL cluster in DATA_DIR. It works beside a running server: with the embedded database it
connects to the cluster the server started; with no server running it starts the cluster for the
length of the command (a server started meanwhile is refused until the command ends).

Commands:
  count [--since DATE]                 how many addresses are on the list
  list [--since DATE]                  one line per entry: created_at (UTC), two spaces, the address; oldest first
  export [--since DATE] [--out FILE]   RFC 4180 CSV (header email,created_at; CRLF line ends) to FILE
                                       (mode 0600, also when it existed), or to standard output
  keys                                 the anon and service_role keys for this DATA_DIR / JWT_SECRET
  url                                  the postgres:// connection string of the embedded cluster, for psql,
                                       pgAdmin or TablePlus, while a server runs. Mind what it is: the
                                       superuser's password in clear text (keep it out of shell history,
                                       screenshots and shared config), full rights over every row (RLS does
                                       not apply to the owner), over TCP on 127.0.0.1, and the port can
                                       change at a restart if another program took it. The server and this
                                       CLI never use it: they go through a private Unix socket. A tool given
                                       this URL after PostgreSQL stopped may hand the password to whatever
                                       program took the port then; use it while the server runs
  remove EMAIL                         erase an address (any letter case); exits 0 whether or not it was listed
  import FILE [--dry-run]              add the entries of an export CSV, keeping created_at, in one transaction;
                                       every line is checked first; listed addresses are skipped; no notifications
  stats [--days N|all]                 signups per day (UTC) as a bar chart, and the total (default 30 days)
  studio [--port N] [--host IP]        a local web view of the list on http://127.0.0.1:N (default 3001),
                                       opened with the token in the URL it prints; Ctrl-C stops it. --host
                                       0.0.0.0 inside a container only, with the port published on the
                                       host's loopback (docs/deploy.md); the token and Host checks stay
  deliveries [--retry]                 signup notifications pending or failed (address, attempts, last error);
                                       --retry sends the failed ones again

DATE is anything Postgres reads as a timestamp, e.g. 2026-11-01 or 2026-11-01T09:00:00Z.
Environment as the server: DATABASE_URL, DATA_DIR (default ./data), JWT_SECRET.

Exit codes: 0 done, 1 failed (database unreachable, DATA_DIR held by another command, bad
configuration), 2 bad usage.
`

async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const env = loadServerEnv()
  // Beside a running server, its cluster; else this command starts the cluster (holding DATA_DIR
  // meanwhile). Either way any pending migration is applied first, as the server would.
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    purpose: 'waitlist CLI',
    besideServer: true,
  })
  try {
    return await fn(database.db)
  } finally {
    await database.close()
  }
}

function countEntries(since: string | undefined): Promise<number> {
  return withDatabase((db) => countListOf(db, since))
}

function readEntries(since: string | undefined): Promise<Entry[]> {
  return withDatabase((db) => readEntriesOf(db, since))
}

function usageError(message: string): number {
  console.error(`${message}\n\nSee npm run waitlist -- --help`)
  return 2
}

async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: 'string' },
      out: { type: 'string' },
      'dry-run': { type: 'boolean' },
      days: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      retry: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [command] = positionals
  if (values.help || !command) {
    process.stdout.write(USAGE)
    return command || values.help ? 0 : 2
  }
  if (values.since !== undefined && Number.isNaN(Date.parse(values.since))) {
    console.error(`--since needs a date such as 2026-11-01, not "${values.since}"`)
    return 2
  }
  switch (command) {
    case 'count': {
      console.log(await countEntries(values.since))
      return 0
    }
    case 'list': {
      for (const entry of await readEntries(values.since)) console.log(`${entry.created_at}  ${entry.email}`)
      return 0
    }
    case 'export': {
      const { csv, entries } = await withDatabase((db) => exportCsv(db, values.since))
      if (values.out) {
        await writePrivateFile(values.out, csv)
        console.error(`Wrote ${entries} entries to ${values.out}`)
      } else process.stdout.write(csv)
      return 0
    }
    case 'keys': {
      const env = loadServerEnv()
      const keys = await loadApiKeys({ jwtSecret: env.JWT_SECRET, dataDir: env.DATA_DIR })
      console.log(`anon:         ${keys.anonKey}\nservice_role: ${keys.serviceKey}`)
      return 0
    }
    case 'url': {
      const env = loadServerEnv()
      if (env.DATABASE_URL) {
        console.error('DATABASE_URL is set: that is the connection string already.')
        return 1
      }
      const url = await runningClusterTcpUrl(env.DATA_DIR)
      if (url === undefined) {
        console.error(
          `No server is running the embedded database in ${env.DATA_DIR}; start it with npm start.`,
        )
        return 1
      }
      if (url === '') {
        console.error(
          'The embedded database listens on its private socket only: another program took its TCP port while ' +
            'it was down. Restart the server to get a TCP address back.',
        )
        return 1
      }
      console.log(url)
      return 0
    }
    case 'remove': {
      const email = positionals[1]
      if (!email) return usageError('remove needs the address to remove: remove EMAIL')
      return withDatabase((db) => removeCommand(db, email))
    }
    case 'import': {
      const file = positionals[1]
      if (!file) return usageError('import needs the CSV file written by export: import FILE [--dry-run]')
      return importCommand(file, values['dry-run'] === true, withDatabase)
    }
    case 'stats': {
      const days = parseDays(values.days)
      if (days === undefined)
        return usageError(`--days needs a number of days (1-3660) or all, not "${values.days}"`)
      return withDatabase((db) => statsCommand(db, days))
    }
    case 'studio': {
      const port = parsePort(values.port, DEFAULT_STUDIO_PORT)
      if (port === undefined) return usageError(`--port needs a port number (0-65535), not "${values.port}"`)
      const host = values.host ?? '127.0.0.1'
      if (isIP(host) === 0)
        return usageError(`--host needs an IP address such as 127.0.0.1, not "${values.host}"`)
      // The studio's error log masks addresses with the installation's key, as the server's does.
      const env = loadServerEnv()
      keyEmailMask((await loadApiKeys({ jwtSecret: env.JWT_SECRET, dataDir: env.DATA_DIR })).secret)
      return withDatabase((db) => studioCommand(db, port, host))
    }
    case 'deliveries':
      return withDatabase((db) => deliveriesCommand(db, { retry: values.retry ?? false }, console.log))
    default:
      console.error(`Unknown command "${command}".\n`)
      process.stderr.write(USAGE)
      return 2
  }
}

loadDotEnvFile()
run(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((error) => {
    if (
      error instanceof ConfigError ||
      error instanceof StartupError ||
      error instanceof ImportFileError ||
      error instanceof StudioPortInUseError
    )
      console.error(error.message)
    else if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      console.error((error as Error).message)
    else console.error('The waitlist CLI failed:', error)
    process.exit(1)
  })
