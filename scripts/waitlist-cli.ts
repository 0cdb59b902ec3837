import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import type { Database } from '../server/db/database'
import { runningClusterUrl } from '../server/db/embedded/embedded-cluster'
import { openDatabase } from '../server/db/open-database'
import { ConfigError, loadDotEnvFile, loadServerEnv } from '../server/env.server'
import { loadApiKeys } from '../server/keys'
import { StartupError } from '../server/startup-error'
import { toCsv } from './csv'

const USAGE = `Usage: npm run waitlist -- <command> [options]

Reads the waitlist straight from the database the server uses: DATABASE_URL, else the embedded
PostgreSQL cluster in DATA_DIR. It works beside a running server: with the embedded database it
connects to the cluster the server started; with no server running it starts the cluster for the
length of the command (a server started meanwhile is refused until the command ends).

Commands:
  count [--since DATE]                 how many addresses are on the list
  list [--since DATE]                  one line per entry: created_at (UTC), two spaces, the address; oldest first
  export [--since DATE] [--out FILE]   RFC 4180 CSV (header email,created_at; CRLF line ends) to FILE
                                       (created with mode 0600), or to standard output
  keys                                 the anon and service_role keys for this DATA_DIR / JWT_SECRET
  url                                  the postgres:// connection string of the embedded cluster, for psql,
                                       pgAdmin or TablePlus, while a server runs. Mind what it is: the
                                       superuser's password in clear text (keep it out of shell history,
                                       screenshots and shared config), full rights over every row (RLS does
                                       not apply to the owner), valid for 127.0.0.1 only, and the port can
                                       change at a restart if another program took it

DATE is anything Postgres reads as a timestamp, e.g. 2026-11-01 or 2026-11-01T09:00:00Z.
Environment as the server: DATABASE_URL, DATA_DIR (default ./data), JWT_SECRET.

Exit codes: 0 done, 1 failed (database unreachable, DATA_DIR held by another command, bad
configuration), 2 bad usage.
`

interface Entry {
  email: string
  created_at: string
}

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

async function countEntries(since: string | undefined): Promise<number> {
  const [row] = await withDatabase((db) =>
    db.query<{ entries: number }>(
      'select count(*)::int as entries from public.waitlist where $1::timestamptz is null or created_at >= $1::timestamptz',
      [since ?? null],
    ),
  )
  return row?.entries ?? 0
}

async function readEntries(since: string | undefined): Promise<Entry[]> {
  return withDatabase((db) =>
    db.query<Entry>(
      `select email::text as email,
              to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
         from public.waitlist
        where $1::timestamptz is null or created_at >= $1::timestamptz
        order by created_at, id`,
      [since ?? null],
    ),
  )
}

async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { since: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
      const entries = await readEntries(values.since)
      const csv = toCsv(
        ['email', 'created_at'],
        entries.map((entry) => [entry.email, entry.created_at]),
      )
      if (values.out) {
        await writeFile(values.out, csv, { mode: 0o600 })
        console.error(`Wrote ${entries.length} entries to ${values.out}`)
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
      const url = await runningClusterUrl(env.DATA_DIR)
      if (!url) {
        console.error(
          `No server is running the embedded database in ${env.DATA_DIR}; start it with npm start.`,
        )
        return 1
      }
      console.log(url)
      return 0
    }
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
    if (error instanceof ConfigError || error instanceof StartupError) console.error(error.message)
    else if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      console.error((error as Error).message)
    else console.error('The waitlist CLI failed:', error)
    process.exit(1)
  })
