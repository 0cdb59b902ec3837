import type { Readable, Writable } from 'node:stream'
import type { JwtClaims } from './jwt-claims'

/** One SQL statement and its parameters ($1, $2…). */
export interface Statement {
  sql: string
  params: readonly unknown[]
  /**
   * Prepared once per connection and reused (no parse or plan per request). Only for texts that
   * repeat from a small set, such as an insert of known columns: never one built from filters.
   */
  prepare?: boolean
}

/** A statement's rows, and how many rows it inserted, changed or deleted (its command tag). */
export interface StatementResult<Row = Record<string, unknown>> {
  rows: Row[]
  affected: number
}

/** Something SQL can be sent to: the database as owner, or one transaction. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>
  /** As query, with the count of rows the statement affected. */
  run<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<StatementResult<Row>>
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>
}

/** A transaction that can stream COPY: see Database.copyTransaction. */
export interface CopyTransaction extends Queryable {
  /** `COPY … TO STDOUT`: the rows as the server sends them. */
  copyTo(sql: string): Readable
  /** `COPY … FROM STDIN`: the rows are written here; it finishes once the server has them all. */
  copyFrom(sql: string): Writable
}

/** The one data-access surface, for the embedded cluster and DATABASE_URL alike. */
export interface Database extends Queryable {
  /** Runs fn inside one transaction as the owner. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /**
   * Runs fn inside one transaction as the owner on a connection of its own, outside the pool, that
   * can stream COPY (a pipelining connection cannot): export and import in bounded memory. When fn
   * fails the connection is dropped, which rolls the transaction back even in the middle of a COPY.
   */
  copyTransaction<T>(fn: (tx: CopyTransaction) => Promise<T>): Promise<T>
  /** Runs fn inside one transaction under the key's role and claims, as PostgREST does. */
  asRole<T>(claims: JwtClaims, fn: (tx: Queryable) => Promise<T>, request?: RequestSettings): Promise<T>
  /**
   * Runs one statement under the key's role and claims in a transaction of its own, in a single
   * round trip: begin, the role settings, the statement and commit are pipelined, each with its
   * parameters as protocol parameters (asRole awaits each in turn).
   */
  runAsRole<Row = Record<string, unknown>>(
    claims: JwtClaims,
    statement: Statement,
    /** The signup's source and network, for the `request.*` settings (roleSettings). */
    request?: RequestSettings,
  ): Promise<StatementResult<Row>>
  /**
   * Calls onNotify on every NOTIFY on channel, over a connection of its own that reconnects if lost.
   * Resolves to a function that stops listening.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>
  /**
   * Opens every connection of the pool and runs `statement` on each under the role and claims, in
   * a transaction rolled back; the connections stay open. A fresh Postgres backend plans its
   * statements and compiles the triggers' functions on first use: done here, before the server
   * listens, rather than beside the first visitors (ADR 111). Resolves to how many it warmed.
   */
  warmConnections(claims: JwtClaims, statement: Statement): Promise<number>
  /** Releases every connection. */
  close(): Promise<void>
}

/** What the server says of a signup for its insert's transaction: the columns that default to it. */
export interface RequestSettings {
  /** public.waitlist.source: the signup's source as analytics names it. */
  source?: string
  /** public.waitlist.signup_network: the client's network as CIDR text (client-network.ts). */
  network?: string
  /** public.waitlist's consent columns, which default to it: the door, its words' version, the agent. */
  consent?: ConsentSettings
}

/** A signup's consent record as the server names it (server/waitlist/consent/): never a client's. */
export interface ConsentSettings {
  door: string
  /** The version of the words the door showed (private.consent_words), if it showed any. */
  words?: string
  /** The agent as it declared itself and as its signature proved it, as JSON (migration 20261207610000). */
  agent?: string
}

// A verified key's claims are one object, remembered by the key cache: its JSON is written once.
const claimsJson = new WeakMap<JwtClaims, string>()

const ROLE_SETTINGS_SQL = `select set_config('search_path', 'public, extensions', true),
                 set_config('role', $1, true),
                 set_config('request.jwt.claims', $2, true),
                 set_config('request.source', $3, true),
                 set_config('request.network', $4, true),
                 set_config('request.door', $5, true),
                 set_config('request.words', $6, true),
                 set_config('request.agent', $7, true)`

/**
 * What PostgREST sets first in every request's transaction, as it does it: the key's role, its
 * claims (PostgREST 9 and later: one JSON setting; Supabase's auth.role() reads the role from it),
 * and Supabase's search path, which includes `extensions`, where citext and its case-insensitive
 * operators live (without it, `email = $1` would compare as text, case-sensitively). Beside them,
 * `request.source` and `request.network`: the signup's source and network as the server named
 * them, which public.waitlist's `source` and `signup_network` columns take by default (no client
 * can write them), and the consent record's door, words and agent, which its `consent_*` columns
 * take the same way (migration 20261205000000). set_config(…, true) lasts until the transaction
 * ends, like SET LOCAL, and takes parameters: one prepared text for every request.
 */
export function roleSettings(claims: JwtClaims, request: RequestSettings = {}): Statement {
  let json = claimsJson.get(claims)
  if (json === undefined) {
    json = JSON.stringify(claims)
    claimsJson.set(claims, json)
  }
  const { consent } = request
  const params = [
    claims.role,
    json,
    request.source ?? '',
    request.network ?? '',
    consent?.door ?? '',
    consent?.words ?? '',
    consent?.agent ?? '',
  ]
  return { sql: ROLE_SETTINGS_SQL, params, prepare: true }
}

/** A Postgres error as node-postgres raises it. */
export interface PgError {
  code: string
  message: string
  detail?: string
  hint?: string
}

export function isPgError(error: unknown): error is PgError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as PgError).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((error as PgError).code) &&
    // A socket error's code can look like a SQLSTATE too (EPIPE): it comes with a syscall.
    !('syscall' in error)
  )
}
