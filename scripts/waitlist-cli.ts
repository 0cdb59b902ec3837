import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { DataDirLockedError } from '../server/db/data-dir-lock'
import type { Database } from '../server/db/database'
import { openDatabase } from '../server/db/open-database'
import { ConfigError, loadDotEnvFile, loadServerEnv } from '../server/env.server'
import { loadApiKeys } from '../server/keys'
import { deliveriesCommand } from './cli/deliveries'
import { toCsv } from './csv'

const USAGE = `Usage: npm run waitlist -- <command> [options]

Reads the waitlist straight from the database the server uses (DATABASE_URL, else PGlite in DATA_DIR).

Commands:
  count [--since DATE]                 how many addresses are on the list
  list [--since DATE]                  one line per entry: created_at (UTC), two spaces, the address; oldest first
  export [--since DATE] [--out FILE]   RFC 4180 CSV (header email,created_at; CRLF line ends) to FILE
                                       (created with mode 0600), or to standard output
  keys                                 the anon and service_role keys for this DATA_DIR / JWT_SECRET
  deliveries [--retry]                 signup notifications pending or failed (address, attempts, last error);
                                       --retry sends the failed ones again

DATE is anything Postgres reads as a timestamp, e.g. 2026-11-01 or 2026-11-01T09:00:00Z.
Environment as the server: DATABASE_URL, DATA_DIR (default ./data), JWT_SECRET.

The embedded database (PGlite) has one owner at a time: while a server holds DATA_DIR the CLI
refuses, names the server's pid and changes nothing. Stop the server first, or read the list
through the running server's REST API with the service_role key (see \`keys\`):
  curl -H "apikey: $SERVICE_KEY" "http://127.0.0.1:3000/rest/v1/waitlist?select=email,created_at&order=created_at"
With DATABASE_URL the CLI runs beside any number of servers.

Exit codes: 0 done, 1 failed (database in use or unreachable, bad configuration), 2 bad usage.
`

interface Entry {
  email: string
  created_at: string
}

async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const env = loadServerEnv()
  // Opening takes the PGlite data-dir lock (refused while a server holds it) and applies any
  // pending migration, exactly as the server would at start.
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    purpose: 'waitlist CLI',
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
    options: {
      since: { type: 'string' },
      out: { type: 'string' },
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
    if (error instanceof ConfigError || error instanceof DataDirLockedError) console.error(error.message)
    else if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      console.error((error as Error).message)
    else console.error('The waitlist CLI failed:', error)
    process.exit(1)
  })
