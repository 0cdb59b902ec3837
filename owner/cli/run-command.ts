import { parseArgs } from 'node:util'
import { ENTRY_STATUSES } from '../../contract/entry-statuses'
import { signupQuestions } from '../../contract/site-config'
import { ConfigError, StartupError } from '../../server/admin/basics'
import { EXIT, EXIT_HELP } from './exit-status'
import { ImportFileError } from './import-file-error'

const ANSWER_IDS = signupQuestions.map((question) => question.id).join(', ')
const ROLE_EXAMPLE = (() => {
  const choice = signupQuestions.find((question) => question.kind === 'choice')
  return choice?.kind === 'choice' ? `${choice.id}=${choice.choices[0]}` : 'ID=VALUE'
})()

const USAGE = `Usage: npm run waitlist -- <command> [options]

Reads the waitlist straight from the database the server uses: DATABASE_URL, else the embedded
PostgreSQL cluster in DATA_DIR. It works beside a running server: with the embedded database it
connects to the cluster the server started; with no server running it starts the cluster for the
length of the command (a server started meanwhile is refused until the command ends).

Commands:
  count [FILTER]                       how many addresses are on the list, or match the filter
  list [FILTER] [--sort COLUMN[:desc]] [--json]
                                       one line per entry: created_at (UTC), the address, its status, two
                                       spaces apart; oldest first, or by COLUMN as the studio's table sorts
                                       (created_at, email, status, source, agent, a question's id such
                                       as organisation, tags, batch, joined_at; none last), :desc the other
                                       way. --json: JSON Lines, one {email, status, source, answers, tags,
                                       note, created_at} a line
  export [FILTER] [--out FILE]         RFC 4180 CSV (header email,created_at,status,confirmed_at,invited_at,
                                       unsubscribed_at,bounced_at,joined_at,source, then answer_ID for each
                                       question, then tags (space-separated) and note, then consent_at,
                                       consent_door,consent_words,consent_agent,confirmed_from; CRLF line
                                       ends) to FILE (mode 0600, also when it existed), or to standard output
  show EMAIL [--json]                  one entry: its address, status, source, answers, tags, note and
                                       consent record, then its history oldest first (signed up, confirmed,
                                       each message and what became of it, provider events, invited, joined,
                                       tags and notes); exits 1 when it is not listed. --json: {email,
                                       status, source, answers: {ID: value}, proposed, tags: [...], note,
                                       consent: {at, door, words: {version, text}, network, agent: {name,
                                       version, verified} | null, confirmed_at, confirmed_from} | null,
                                       history: [{at, event, detail?, kind?, outcome?}]}
  tag EMAIL… TAG                       give the addresses the team's tag (a lower-case word of up to 32
                                       characters: a-z, 0-9, - and _, e.g. shortlist); untag EMAIL… TAG
                                       takes it away. Exits 1 when none of them is listed
  note EMAIL TEXT                      the team's note on the entry, up to 1,000 characters; "" clears it.
                                       Tags and notes are the lab's: no mail, webhook or page the person
                                       sees shows them, and remove erases them
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
  backup --to DIR                      a consistent copy of the embedded cluster (the list, the team and its
                                       passkeys, the record, the erased list, settings, outboxes) into a new
                                       or empty DIR, taken while the site runs; says what it holds and when
  restore --from DIR|URL [--at TIME]   rebuild an empty DATA_DIR from such a copy, as of the moment it ended,
                                       or from BACKUP_URL's store to its latest point, or --at TIME (ISO 8601
                                       with its zone, within the store's retention); a DATA_DIR that holds a
                                       list is refused and left as it was; erasures since are made again
  remove EMAIL…                        erase each address (any letter case) and all it holds; one not listed
                                       is named and left; a keyed hash keeps it out of later imports until
                                       it signs up again and confirms the address; entry.erased goes to
                                       the webhook
  consent-words [--json]               every version of the words the doors showed (the page's form, the MCP
                                       tool, an import's file): version, SHA-256, doors, entries, first and
                                       last use, text; --json: an array of {version, hash, text, doors,
                                       entries, first, last, registered}
  suppressed                           how many erased or removed addresses imports skip
  unsuppress EMAIL                     let an erased or removed address be imported again; exits 1 when it
                                       was not kept out
  import FILE [--dry-run] [--column "HEADER=FIELD"]… [--map ID:VALUE=CHOICE]… [--map-file FILE]
         [--dates mdy|dmy] [--timezone ZONE] [--ignore-unknown]
                                       add the entries of a CSV of any size in one transaction: an export
                                       (statuses, source, answers, tags, note, consent record and name kept),
                                       or any list as exported: Google Forms, Typeform, Tally, Mailchimp,
                                       Luma, Airtable, a spreadsheet in any locale (, ; or tab, a BOM).
                                       The address, name (or first and last), company, sign-up time and
                                       tags are found by their headers (the address by its contents too);
                                       --column "HEADER=FIELD" points any other column at email, name,
                                       first_name, last_name, created_at, source, tags, note, status or a
                                       question's id (=- leaves it out). Other columns are kept as the
                                       entry's details, unless --ignore-unknown. Dates: ISO, Unix seconds,
                                       10/14/2024 or 14.10.2024, the order told by the first 1,000 rows or
                                       --dates; a time without a zone is UTC unless --timezone. A choice
                                       matches in any letter case; --map role:Engineer=Engineering, or a
                                       --map-file of id,value,choice lines, maps the sheet's words.
                                       Mailchimp's UNSUB_TIME and CLEAN_TIME, and Luma's declined, are
                                       unsubscribed or bounced. A row without a usable address is named and skipped; any
                                       other bad row stops it all, every error listed (100 at most, then a
                                       count). Listed addresses are skipped but take a further status from
                                       the file (never an earlier one), and what they lack; no
                                       notifications, no mail. Erased or removed addresses are skipped.
                                       --dry-run says where each column goes and shows three rows as stored
  stats [--days N|all]                 signups per day (UTC) as a bar chart, and the total (default 30 days)
  sources [--days N|all] [--json]      visits, visitors, signups and conversion (signups per visit, as the
                                       funnel's) per source (utm_source, else the referring site, else
                                       direct; mcp for agents), most signups first, then by medium and
                                       campaign (default 30 days); --json: an array of {source, visits,
                                       visitors, signups, conversion, campaigns}
  funnel [--by source|batch|agent] [--days 30|90|all] [--json]
                                       from visits to the beta: visits (where counted), signups, confirmed,
                                       invited, joined, each person once, each step with its rate of the
                                       step before (at most 100%); by source (the default: entries who
                                       signed up in the window, on a counted page visit, then one row of
                                       those with no visit counted: API, MCP, imports) or by batch (each
                                       invite run: when, by cli or studio, how chosen, the people it counts
                                       (each in one batch: the one whose code they redeemed, else their
                                       latest), who joined) or by agent (a verified agent apart from the
                                       names programs declared); the studio's windows, the whole list unless
                                       --days. --json: {window, total, rows}, each row with signups,
                                       confirmed, invited, joined, rates (and kind and visits by source,
                                       batch {id, at, by, size, chosenBy, erased} by batch: a person
                                       erased since still counts in their batch, as the record counts it)
  studio [--port N] [--host IP]        a local web view of the list on http://127.0.0.1:N (default 3001),
                                       opened with the token in the URL it prints; Ctrl-C stops it. --host
                                       0.0.0.0 inside a container only, with the port published on the
                                       host's loopback (docs/deploy.md); the token and Host checks stay.
                                       It reads the running server's database, and says when the site is
                                       stopped
  preflight                            the running server reads its sender's DNS (DNS_SERVERS, else the
                                       system's): SPF, DKIM, DMARC and alignment, the bounce domain's MX,
                                       one-click unsubscribe; one line each, with the record read and what
                                       to publish. Exit 0 when all pass (warnings pass), 1 when any fails
  invite --next N [FILTER] [--sort COLUMN[:desc]] | EMAIL… [--dry-run] [--wait] [--resend]
         [--skip-preflight]
                                       queue a beta invitation for the first N waiting entries the filter
                                       matches (all of them without one), oldest first or in list --sort's
                                       order, or for the addresses named, as
                                       one batch (the funnel counts it); the running server sends them
                                       with its own SMTP_URL, MAIL_FROM, SITE_URL and BETA_URL, at
                                       MAIL_PER_MINUTE. Nobody is invited twice without --resend; nobody
                                       unsubscribed, complained or unconfirmed ever is (--status may name
                                       waiting, or invited with --resend, no other). Nothing is queued
                                       while the beta link is a placeholder (a reserved example name: set
                                       BETA_URL). --dry-run says how many match, prints the first 20 and
                                       the message as the server would send it, and changes nothing, not
                                       even a migration; --wait follows the sending to the end. A batch
                                       waits for a passing preflight (kept an hour): --skip-preflight
                                       sends anyway, and the record keeps which checks were skipped
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

  team add EMAIL --role viewer|member|owner
                                       a member of the lab's team for the studio at SITE_URL/studio
                                       (docs/deploy.md), and their enrolment link: one use, 24 hours, on
                                       SITE_URL (else http://localhost:PORT); they create a passkey there.
                                       viewer sees; member also invites, tags, notes, resumes sending;
                                       owner also runs the team, exports and removes entries
  team list                            the members: role, passkeys, last sign-in, an open link
  team role EMAIL ROLE                 change a member's role (from their next request)
  team remove EMAIL                    remove a member: their passkeys and sessions end at once
  team link EMAIL [--revoke]           a new enrolment link (a lost device); the one before stops working,
                                       and every session of theirs ends at once (each device signs in
                                       again); --revoke also removes every passkey of theirs, so only
                                       the passkey made with the new link signs in (a stolen device)
  audit [--since DATE] [--json]        the record of who did what, oldest first: every change made in the
                                       team studio, the local studio or the CLI (invite, resend, remove,
                                       export, resume, team changes…), every sign-in and failed sign-in:
                                       when, who (a member, or cli: and the OS user), what, how many, from
                                       which network. --json: one object per line: {at, actor, action,
                                       detail, count, from}

FILTER chooses entries; each flag given must match (all of them), and a flag given again adds
another value (any of them matches; --tag: all of them):
  --status S                           the entry's status (S below)
  --source NAME                        where the signup came from, as sources names it: a utm_source, a
                                       referring site, direct, (api), mcp
  --answer ID=VALUE                    an answer to a signup question (ID: ${ANSWER_IDS}):
                                       a choice exactly (${ROLE_EXAMPLE}), a text as a part of it in
                                       any letter case (organisation=cern)
  --domain DOMAIN                      the address's domain or any of its subdomains, in any letter case:
                                       stanford.edu finds cs.stanford.edu, edu every .edu address
  --tag T                              carries the team's tag T; given again, every one of them (all must
                                       match); --no-tag T: carries none of those given
  --batch N                            invited last in batch N (the numbers funnel --by batch shows)
  --since DATE                         signed up at or after DATE (once)
  --agent NAME                         made through an agent: the name its client declared, or a
                                       verified agent's display name or origin (SIGNATURE_AGENTS)
  --agent-verified                     made through an agent whose Web Bot Auth signature held
S is a status: ${ENTRY_STATUSES.join(', ')} (docs/invitations.md).
DATE is anything Postgres reads as a timestamp, e.g. 2026-11-01 or 2026-11-01T09:00:00Z.
Environment as the server: DATABASE_URL, DATA_DIR (default ./data; as root, see docs/operations.md), JWT_SECRET.
No mail settings: invite and the studio use those each server records in the database at start.

${EXIT_HELP}`

/** Every flag the CLI knows, whatever the command; any other is a usage error (exit 2). */
const OPTIONS = {
  since: { type: 'string' },
  out: { type: 'string' },
  'dry-run': { type: 'boolean' },
  days: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  retry: { type: 'boolean' },
  resume: { type: 'boolean' },
  revoke: { type: 'boolean' },
  next: { type: 'string' },
  wait: { type: 'boolean' },
  resend: { type: 'boolean' },
  'skip-preflight': { type: 'boolean' },
  test: { type: 'string' },
  confirm: { type: 'boolean' },
  json: { type: 'boolean' },
  status: { type: 'string', multiple: true },
  source: { type: 'string', multiple: true },
  answer: { type: 'string', multiple: true },
  domain: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  'no-tag': { type: 'string', multiple: true },
  batch: { type: 'string', multiple: true },
  agent: { type: 'string', multiple: true },
  'agent-verified': { type: 'boolean' },
  map: { type: 'string', multiple: true },
  'map-file': { type: 'string' },
  column: { type: 'string', multiple: true },
  dates: { type: 'string' },
  timezone: { type: 'string' },
  'ignore-unknown': { type: 'boolean' },
  by: { type: 'string' },
  'show-addresses': { type: 'boolean' },
  to: { type: 'string' },
  from: { type: 'string' },
  at: { type: 'string' },
  role: { type: 'string' },
  sort: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
  const [name] = positionals
  if (values.help || !name) {
    process.stdout.write(USAGE)
    return name || values.help ? EXIT.done : EXIT.usage
  }
  // Past the usage, which needs none of it; each command then loads its own (commands.ts).
  const { COMMANDS, FILTER_FLAGS, FILTERING_COMMANDS } = await import('./commands')
  if (values.since !== undefined && Number.isNaN(Date.parse(values.since))) {
    console.error(`--since needs a date such as 2026-11-01, not "${values.since}"`)
    return EXIT.usage
  }
  // Ignored, a filter would do something else than asked: `stats --source hn` counting everyone.
  // `audit --since` is the record's own.
  const filterFlag = FILTER_FLAGS.find(
    (flag) => values[flag] !== undefined && !(name === 'audit' && flag === 'since'),
  )
  if (filterFlag && !FILTERING_COMMANDS.includes(name)) {
    console.error(`--${filterFlag} goes with list, count, export and invite --next, not ${name}`)
    return EXIT.usage
  }
  if (values.sort !== undefined && name !== 'list' && name !== 'invite') {
    console.error(`--sort goes with list and invite --next, not ${name}`)
    return EXIT.usage
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command) return command({ positionals, values })
  console.error(`Unknown command "${name}".\n`)
  process.stderr.write(USAGE)
  return EXIT.usage
}

/**
 * One command line, start to end, as the `waitlist` process runs it: the exit status (exit-status.ts),
 * with what went wrong already written to standard error. Never throws for a bad variable, flag or
 * file; the tests call it in-process with the same outcome as the process (harness/waitlist-cli.ts).
 */
export async function runCommandLine(argv: string[]): Promise<number> {
  try {
    return await run(argv)
  } catch (error) {
    // A bad variable or flag: nothing was tried (exit-status.ts).
    if (
      error instanceof ConfigError ||
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    ) {
      console.error((error as Error).message)
      return EXIT.usage
    }
    // StartupError covers the studio's port in use (start-studio.ts).
    if (error instanceof StartupError || error instanceof ImportFileError) console.error(error.message)
    else console.error('The waitlist CLI failed:', error)
    return EXIT.nothingDone
  }
}
