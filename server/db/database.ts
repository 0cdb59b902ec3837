import type { JwtClaims } from '../keys'
import { inlineParams } from './sql-literals'

/** One SQL statement and its parameters ($1, $2…). */
export interface Statement {
  sql: string
  params: readonly unknown[]
}

/** Something SQL can be sent to: the database as owner, or one transaction. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>
}

/** The one data-access surface; PGlite and node-postgres both sit behind it. */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  /** Runs fn inside one transaction as the owner. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /** Runs fn inside one transaction under the key's role and claims, as PostgREST does. */
  asRole<T>(claims: JwtClaims, fn: (tx: Queryable) => Promise<T>): Promise<T>
  /**
   * Runs one statement under the key's role and claims in a transaction of its own, in a single
   * round trip (asRole takes four: begin, role, statement, commit); returns the statement's rows.
   */
  runAsRole<Row = Record<string, unknown>>(claims: JwtClaims, statement: Statement): Promise<Row[]>
  /** Flushes to disk where that means something (PGlite), then releases everything. */
  close(): Promise<void>
}

/**
 * The statement PostgREST runs first in every request's transaction. Supabase's search path
 * includes `extensions`, where citext and its case-insensitive operators live: without it,
 * `email = $1` would compare as text, case-sensitively.
 */
export const SET_ROLE_SQL =
  "select set_config('search_path', 'public, extensions', true), set_config('role', $1, true), " +
  "set_config('request.jwt.claims', $2, true), set_config('request.jwt.claim.role', $1, true)"

export function roleParams(claims: JwtClaims): unknown[] {
  return [claims.role, JSON.stringify(claims)]
}

/**
 * The role switch and one statement as a single simple-protocol query. Postgres runs the statements
 * of one such query as one implicit transaction, so the settings (set_config's `true`: local to the
 * transaction) last exactly as long as the statement, and a failure rolls everything back. The
 * simple protocol takes no parameters, hence the literals (server/db/sql-literals.ts).
 */
export function roleScript(claims: JwtClaims, statement: Statement): string {
  return `${inlineParams(SET_ROLE_SQL, roleParams(claims))};\n${inlineParams(statement.sql, statement.params)}`
}

/** A Postgres error as both drivers raise it. */
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
    /^[0-9A-Z]{5}$/.test((error as PgError).code)
  )
}
