import type { JwtClaims } from '../keys'
import { inlineParams, quoteIdent, sqlLiteral } from './sql-literals'

/** One SQL statement and its parameters ($1, $2…). */
export interface Statement {
  sql: string
  params: readonly unknown[]
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

/** The one data-access surface; PGlite and node-postgres both sit behind it. */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  /** Runs fn inside one transaction as the owner. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /** Runs fn inside one transaction under the key's role and claims, as PostgREST does. */
  asRole<T>(claims: JwtClaims, fn: (tx: Queryable) => Promise<T>): Promise<T>
  /**
   * Runs one statement under the key's role and claims in a transaction of its own, in a single
   * round trip (asRole takes four: begin, role, statement, commit).
   */
  runAsRole<Row = Record<string, unknown>>(
    claims: JwtClaims,
    statement: Statement,
  ): Promise<StatementResult<Row>>
  /**
   * Calls onNotify on every NOTIFY on channel, over a connection of its own that reconnects if lost.
   * Resolves to a function that stops listening. Absent where the driver cannot listen (PGlite):
   * callers poll instead.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>
  /** Flushes to disk where that means something (PGlite), then releases everything. */
  close(): Promise<void>
}

/**
 * What PostgREST sets first in every request's transaction: the key's role, its claims (as
 * PostgREST 9 and later, one JSON setting; Supabase's auth.role() reads the role from it), and
 * Supabase's search path, which includes `extensions`, where citext and its case-insensitive
 * operators live (without it, `email = $1` would compare as text, case-sensitively). SET LOCAL
 * lasts until the transaction ends; as utility statements these cost no planning.
 */
export function roleSettings(claims: JwtClaims): string {
  return [
    'set local search_path = public, extensions',
    `set local role ${quoteIdent(claims.role)}`,
    `set local request.jwt.claims = ${sqlLiteral(JSON.stringify(claims))}`,
  ].join('; ')
}

/**
 * The role settings and one statement as a single simple-protocol query. Postgres runs the
 * statements of one such query as one implicit transaction block, so the settings last exactly as
 * long as the statement, and a failure rolls everything back. The simple protocol takes no
 * parameters, hence the literals (server/db/sql-literals.ts).
 */
export function roleScript(claims: JwtClaims, statement: Statement): string {
  return `${roleSettings(claims)};\n${inlineParams(statement.sql, statement.params)}`
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
