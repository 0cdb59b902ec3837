import type { Answers } from '../../contract/signup-questions'
import type { StoredAgent } from '../agents/agent-record'
import type { SourceKey } from '../analytics/source-of'
import type { Logger } from '../base/log'
import {
  type ConsentSettings,
  type Database,
  isPgError,
  type Statement,
  type StatementResult,
} from '../db/database'
import type { JwtClaims } from '../db/jwt-claims'
import { quoteIdent } from '../db/sql-identifier'
import type { AddressPolicy, AddressRefusal } from './address-policy/address-policy'
import { MAX_EMAIL_LENGTH, WHATWG_EMAIL } from './admin/email-rule'
import { afterRepeatSignup } from './confirmations'
import type { ConsentDoor, DoorWords } from './consent/door-words'
import { giveAnswers } from './entry-answers'

/**
 * A signup, whichever door it came through: the REST insert of `waitlist` (the page and WebMCP call
 * it through supabase-js), the no-script form and the MCP tool each hand their rows here. One
 * function, in order, like Plausible's ingestion pipeline:
 *   1. the address rule (an array's rows, in Postgres's own words);
 *   2. the address policy (disposable, blocked, no mail), not for the owner's key;
 *   3. the one insert, as the key's role, so the grants, row-level security, the database's own
 *      checks and the signup trigger (its webhook, its confirmation) decide as on Supabase;
 *   4. on a repeat (23505), the repeat-signup mail: an unconfirmed address gets its link again;
 *   5. the "signed up" hook, which analytics counts by source.
 */

export type Row = Record<string, unknown>

export interface Signup {
  rows: readonly Row[]
  /** The columns the rows give, in the table's order (the REST room checked that each exists). */
  columns: readonly string[]
  /** The key's role and claims: anon for the page, the form and MCP. */
  claims: JwtClaims
  /** PostgREST's `select` list, for an insert that answers with its rows (return=representation). */
  returning?: string
  /** Where the signup came from, named before its insert (analytics): kept with the entry, counted after. */
  source?: SourceKey
  /** The client's network (client-network.ts, CIDR text): kept with the entry, for send health. */
  network?: string
  /** The door it came through, and the agent that declared itself: the entry's consent record. */
  consent?: SignupConsent
  /**
   * Answers to the lab's questions (an agent's tool call), checked: stored with a new entry only,
   * proposed until the person confirms (entry-answers.ts).
   */
  answers?: Answers
}

/** What a door tells of a signup for its consent record (consent/door-words.ts). */
export interface SignupConsent {
  door: ConsentDoor
  /**
   * The agent: its client's declaration (an MCP client's name and version), and, for a signed
   * request, what the Web Bot Auth check found (server/agents/verify-agent.ts).
   */
  agent?: StoredAgent
}

/** Where one signup came from, as its door tells it: its source, the client's network, its consent. */
export type SignupOrigin = Pick<Signup, 'source' | 'network' | 'consent'>

export interface SignupDeps {
  db: Database
  /** Addresses refused before anything is stored (ADR 060); absent, none. */
  policy?: AddressPolicy
  /** Told of new entries once their insert has committed (not for the owner's key). */
  signedUp?: (source: SourceKey, rows: number) => void
  /** The version of the words each door shows (registered at start-up); absent, none is named. */
  words?: DoorWords
}

/** What the insert did: how many rows, and their JSON when it was asked for. */
export interface Inserted {
  affected: number
  body: string | undefined
}

/**
 * An address refused before the insert, shaped as the database's own refusal (code, message,
 * detail, hint), so every door answers it as it answers Postgres: the REST room as PostgREST does.
 */
export class SignupRefused extends Error {
  override name = 'SignupRefused'
  constructor(
    readonly code: string,
    message: string,
    readonly detail?: string,
    readonly hint?: string,
    /** The policy's refusal, when it was the policy's (its domain and reason, for a log line). */
    readonly policy?: AddressRefusal,
  ) {
    super(message)
  }
}

/** The one signup path: see the steps above. Throws SignupRefused, or the database's error. */
export async function signUp(deps: SignupDeps, signup: Signup): Promise<Inserted> {
  const { rows, claims } = signup
  // The owner's key is the owner's word (ADR 060): no policy for service_role.
  const owner = claims.role === 'service_role'
  // Rows without an address are the database's to refuse (not null), in its own words.
  if (signup.columns.includes('email')) {
    if (rows.length > 1) checkAddressRule(rows)
    if (deps.policy && !owner) await checkAddressPolicy(deps.policy, rows)
  }
  const inserted = await insertRows(deps.db, signup, deps.words).catch(async (error: unknown) => {
    if (isPgError(error) && error.code === '23505') await afterRepeatSignup(deps.db, emailsOf(rows))
    throw error
  })
  if (signup.source && !owner) deps.signedUp?.(signup.source, inserted.affected)
  return inserted
}

/** One address, as anon: the no-script form's and the MCP tool's signup, told as an outcome. */
export type SignupOutcome =
  | { status: 'submitted' }
  | { status: 'already_registered' }
  | { status: 'refused'; code: string; policy?: AddressRefusal }
  | { status: 'failed'; error: unknown }

export async function signUpOne(
  deps: SignupDeps,
  email: string,
  origin: SignupOrigin = {},
  answers?: Answers,
): Promise<SignupOutcome> {
  try {
    await signUp(deps, { rows: [{ email }], columns: ['email'], claims: ANON, ...origin, answers })
    return { status: 'submitted' }
  } catch (error) {
    if (error instanceof SignupRefused) return { status: 'refused', code: error.code, policy: error.policy }
    if (isPgError(error) && error.code === '23505') return { status: 'already_registered' }
    // A check or not-null constraint (SQLSTATE class 23): the database's own verdict on the address.
    if (isPgError(error) && error.code.startsWith('23')) return { status: 'refused', code: error.code }
    return { status: 'failed', error }
  }
}

const ANON: JwtClaims = { role: 'anon' }

/**
 * 1. An array is judged whole: a row the database would refuse fails it with that row's own
 * error, whatever the others are, so `[listed, bad]` and `[unlisted, bad]` answer alike (ADR 024).
 * The waitlist's own checks, in Postgres's order and words; json_populate_recordset reads a number
 * or an object as its JSON text. One row is left to the database, which says the same.
 */
export function checkAddressRule(rows: readonly Row[]): void {
  for (const { email } of rows) {
    if (email === null || email === undefined) {
      const message = 'null value in column "email" of relation "waitlist" violates not-null constraint'
      throw new SignupRefused('23502', message)
    }
    const text = typeof email === 'string' ? email : JSON.stringify(email)
    const check = !WHATWG_EMAIL.test(text) ? 'format' : text.length > MAX_EMAIL_LENGTH ? 'length' : undefined
    if (check) {
      const message = `new row for relation "waitlist" violates check constraint "waitlist_email_${check}"`
      throw new SignupRefused('23514', message)
    }
  }
}

// P0001, as a database trigger's `raise exception` would answer through PostgREST: never 23505
// (the page's "already registered").
const refused = (refusal: AddressRefusal) =>
  new SignupRefused('P0001', refusal.message, refusal.details, refusal.hint, refusal)

/**
 * 2. Any row's refusal refuses the whole signup (the first decides); with the lists alone,
 * synchronously, so the insert path pays a few Map reads.
 */
async function checkAddressPolicy(policy: AddressPolicy, rows: readonly Row[]): Promise<void> {
  if (!policy.asksDns) {
    for (const row of rows) {
      const refusal = policy.listed(row.email)
      if (refusal) throw refused(refusal)
    }
    return
  }
  const refusals = await Promise.all(rows.map((row) => policy.refusal(row.email)))
  const first = refusals.find((refusal) => refusal !== undefined)
  if (first) throw refused(first)
}

/**
 * What the entry's consent columns take as its record: the door (the owner's key is a program:
 * `api`), the version of the words that door shows, the agent as it declared itself and as its
 * signature proved it (one JSON value, written by the insert itself: no statement more).
 */
function consentSettings(signup: Signup, words: DoorWords | undefined): ConsentSettings {
  const door = signup.claims.role === 'service_role' ? 'api' : (signup.consent?.door ?? 'api')
  const agent = signup.consent?.agent
  return { door, words: words?.[door], agent: agent && JSON.stringify(agent) }
}

/**
 * 3. The insert, in one round trip under the key's role (Database.runAsRole), the source, the
 * network and the consent record set beside the role for the columns that default to them (the
 * consent record is written by the insert itself). With answers, the insert and
 * the answers in one transaction: the row as the key's role, then, back as the owner (anon may not
 * name private tables), its answers; a repeat's 23505 stores none.
 */
async function insertRows(db: Database, signup: Signup, words: DoorWords | undefined): Promise<Inserted> {
  const statement = insertStatement(signup.columns, signup.rows, signup.returning)
  const { answers } = signup
  const consent = consentSettings(signup, words)
  const request = { source: signup.source?.source, network: signup.network, consent }
  if (!answers || Object.keys(answers).length === 0)
    return statement.read(await db.runAsRole(signup.claims, statement, request))
  return db.asRole(
    signup.claims,
    async (tx) => {
      const result = await tx.run(statement.sql, [...statement.params])
      await tx.query("select set_config('role', 'none', true)")
      const [row] = await tx.query<{ id: string }>(
        'select id::text as id from public.waitlist where email operator(extensions.=) $1::extensions.citext',
        [signup.rows[0]?.email],
      )
      if (row) await giveAnswers(tx, row.id, answers)
      return statement.read(result)
    },
    request,
  )
}

const TARGET = `public.${quoteIdent('waitlist')}`

/**
 * Every connection of the pool made ready for the page's signup before the server listens: the
 * insert prepared (the text a signup of one address sends) and the triggers' functions compiled,
 * in a transaction rolled back (Database.warmConnections). A failure is logged and start-up goes on.
 * Resolves to how many connections are ready.
 */
export async function warmSignupConnections(db: Database, log: Logger): Promise<number> {
  const statement = insertStatement(['email'], [{ email: 'warm-up@example.com' }], undefined)
  return db.warmConnections(ANON, statement).catch((error: unknown) => {
    log.error('Could not warm the database connections (starting without):', error)
    return 0
  })
}

/**
 * The waitlist's one insert, written once: keys absent from a row become null, as PostgREST's
 * json_populate_recordset does. Without a representation it is the bare statement, one of a
 * handful of texts (its columns in table order), prepared once per connection; with one, the rows
 * come back as JSON built inside Postgres, as PostgREST does, parsed each time (never a named
 * statement a client's `select` could multiply, ADR 024).
 */
export function insertStatement(
  columns: readonly string[],
  rows: readonly Row[],
  returning: string | undefined,
): Statement & { read(result: StatementResult): Inserted } {
  const params = [JSON.stringify(rows)]
  const insert =
    columns.length === 0
      ? `insert into ${TARGET} select from json_array_elements($1::json)`
      : `insert into ${TARGET} (${columns.map(quoteIdent).join(', ')}) select ${columns.map(quoteIdent).join(', ')} from json_populate_recordset(null::${TARGET}, $1::json)`
  if (!returning)
    return { sql: insert, params, prepare: true, read: ({ affected }) => ({ body: undefined, affected }) }
  return {
    sql: `with written as (${insert} returning ${returning})
     select coalesce(json_agg(written), '[]')::text as body, count(*) as affected from written`,
    params,
    read({ rows: [result] }) {
      const { body, affected } = result as { body: string; affected: string | number }
      return { body, affected: Number(affected) }
    },
  }
}

/** The addresses in a signup's rows (a repeat signup's, for its confirmation again). */
const emailsOf = (rows: readonly Row[]) =>
  rows.flatMap((row) => (typeof row.email === 'string' ? [row.email] : []))
