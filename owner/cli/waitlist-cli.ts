import { parseArgs } from 'node:util'
import { StartupError } from '../../server/base/startup-error'
import { ConfigError, loadDotEnvFile } from '../../server/boot/env'
import { ENTRY_STATUSES } from '../../server/waitlist/entry-status'
import { StudioPortInUseError } from '../studio-server/start-studio'
import { COMMANDS } from './commands'
import { ImportFileError } from './import-records'

const USAGE = `Usage: npm run waitlist -- <command> [options]

Reads the waitlist straight from the database the server uses: DATABASE_URL, else the embedded
PostgreSQL cluster in DATA_DIR. It works beside a running server: with the embedded database it
connects to the cluster the server started; with no server running it starts the cluster for the
length of the command (a server started meanwhile is refused until the command ends).

Commands:
  count [--status S]… [--since DATE]   how many addresses are on the list, or match the filter
  list [--status S]… [--since DATE]    one line per entry: created_at (UTC), the address, its status, two
                                       spaces apart; oldest first
  export [--status S]… [--since DATE] [--out FILE]
                                       RFC 4180 CSV (header email,created_at,status,confirmed_at,invited_at,
                                       unsubscribed_at,bounced_at; CRLF line ends) to FILE (mode 0600, also
                                       when it existed), or to standard output
  keys                                 the anon and service_role keys for this DATA_DIR / JWT_SECRET, and the
                                       key the beta product checks invite codes with (docs/invitations.md)
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
  import FILE [--dry-run]              add the entries of a CSV of any size in one transaction: an export
                                       (created_at and statuses kept), or a plain list under the header
                                       email (with any of the export's columns, in any order; no created_at
                                       is now, no status waiting); nothing is added unless every line is
                                       good; listed addresses are skipped but take a further status from the
                                       file (never an earlier one); no notifications, no mail
  stats [--days N|all]                 signups per day (UTC) as a bar chart, and the total (default 30 days)
  sources [--days N|all] [--json]      visits, visitors, signups and conversion per source (utm_source, else
                                       the referring site, else direct; mcp for agents), most signups first,
                                       then by medium and campaign (default 30 days); --json: an array of
                                       {source, visits, visitors, signups, conversion, campaigns}
  studio [--port N] [--host IP]        a local web view of the list on http://127.0.0.1:N (default 3001),
                                       opened with the token in the URL it prints; Ctrl-C stops it. --host
                                       0.0.0.0 inside a container only, with the port published on the
                                       host's loopback (docs/deploy.md); the token and Host checks stay.
                                       It reads the running server's database, and says when the site is
                                       stopped
  invite --next N | EMAIL… [--dry-run] [--wait] [--resend]
                                       queue a beta invitation for the N oldest waiting entries, or for the
                                       addresses named; the running server sends them with its own
                                       SMTP_URL, MAIL_FROM, SITE_URL and BETA_URL, at MAIL_PER_MINUTE.
                                       Nobody is invited twice without --resend; nobody unsubscribed,
                                       complained or unconfirmed ever is. Nothing is queued while the
                                       beta link is a placeholder (a reserved example name: set BETA_URL).
                                       --dry-run prints who and the message as the server would send it,
                                       and changes nothing, not even a migration; --wait follows the
                                       sending to the end
  invite --test ADDRESS [--wait]       send ADDRESS the invitation exactly as the next invitee gets it; adds
                                       nobody, its links change nothing and its invite code is refused;
                                       an address listed unsubscribed, complained or bounced gets nothing
  invite --confirm EMAIL…              send unconfirmed entries their confirmation again (the link's
                                       CONFIRM_EXPIRE_DAYS start again)
  deliveries [--retry | --resume] [--show-addresses]
                                       send health (bounce and complaint rates; paused, and why), then
                                       signup notifications and mail pending or failed (address, attempts,
                                       last error), then who bounced or complained since the last
                                       invitations were queued, masked as the log masks them unless
                                       --show-addresses; --retry sends the failed ones again; --resume
                                       resumes sending paused by bounces or complaints

S is a status: ${ENTRY_STATUSES.join(', ')} (docs/invitations.md);
--status again adds another (any of them matches).
DATE is anything Postgres reads as a timestamp, e.g. 2026-11-01 or 2026-11-01T09:00:00Z.
Environment as the server: DATABASE_URL, DATA_DIR (default ./data; as root, see docs/operations.md), JWT_SECRET.
No mail settings: invite and the studio use those each server records in the database at start.

Exit codes: 0 done, 1 failed (database unreachable, DATA_DIR held by another command, bad
configuration), 2 bad usage.
`

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
      resume: { type: 'boolean' },
      next: { type: 'string' },
      wait: { type: 'boolean' },
      resend: { type: 'boolean' },
      test: { type: 'string' },
      confirm: { type: 'boolean' },
      json: { type: 'boolean' },
      status: { type: 'string', multiple: true },
      'show-addresses': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [name] = positionals
  if (values.help || !name) {
    process.stdout.write(USAGE)
    return name || values.help ? 0 : 2
  }
  if (values.since !== undefined && Number.isNaN(Date.parse(values.since))) {
    console.error(`--since needs a date such as 2026-11-01, not "${values.since}"`)
    return 2
  }
  // Ignored, a filter would let `invite --next 50 --status bounced` invite fifty others.
  if (values.status !== undefined && !['list', 'count', 'export'].includes(name)) {
    console.error(`--status goes with list, count and export, not ${name}`)
    return 2
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command) return command({ positionals, values })
  console.error(`Unknown command "${name}".\n`)
  process.stderr.write(USAGE)
  return 2
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
