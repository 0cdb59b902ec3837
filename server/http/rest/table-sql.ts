import type { Queryable, Statement, StatementResult } from '../../db/database'
import { quoteIdent } from '../../db/sql-identifier'
import { type ReadQuery, selectList } from './query-params'
import type { Row } from './request-body'

// A statement that answers with rows builds its JSON answer inside Postgres, as PostgREST does, so
// both drivers hand back one text value and types such as bigint and timestamptz serialise the
// same way. A write with no answer asked for is the bare statement: its command tag counts the rows.

/** A statement built here, and how to read what it answers. */
export interface TableStatement<Result> extends Statement {
  /** Whether the statement answers with the rows it wrote (a representation was asked for). */
  returnsBody: boolean
  read(result: StatementResult): Result
}

/** What a write answers: the rows it wrote as JSON when they were asked for, and how many. */
export interface WriteResult {
  body: string | undefined
  affected: number
}

/** Runs a statement inside a transaction that is already open (Database.asRole). */
export async function runIn<Result>(tx: Queryable, statement: TableStatement<Result>): Promise<Result> {
  return statement.read(await tx.run(statement.sql, [...statement.params]))
}

/** Inserts rows (keys absent from a row become null, as PostgREST's json_to_recordset does). */
export function insertStatement(
  table: string,
  keys: string[],
  rows: Row[],
  returning: string[] | '*' | undefined,
  upsert?: Upsert,
): TableStatement<WriteResult> {
  const insert = upsert ? insertText(table, keys) + onConflict(keys, upsert) : plainInsertText(table, keys)
  // A representation needs select rights: a role without them gets Postgres's 42501 and a
  // rolled-back insert, as on PostgREST.
  const statement = writeStatement(insert, [JSON.stringify(rows)], returning)
  // The page's insert is one of a handful of texts (the columns sent, in the table's order): worth
  // preparing. A representation or an upsert is rarer, and its text carries more of the client's
  // choices: parsed each time, never left behind as a named statement (ADR 024).
  if (!returning && !upsert) statement.prepare = true
  return statement
}

type Upsert = {
  resolution: 'merge-duplicates' | 'ignore-duplicates'
  target: readonly string[] | undefined
}

function insertText(table: string, keys: string[]): string {
  const target = `public.${quoteIdent(table)}`
  if (keys.length === 0) return `insert into ${target} select from json_array_elements($1::json)`
  const columns = keys.map(quoteIdent).join(', ')
  return `insert into ${target} (${columns}) select ${columns} from json_populate_recordset(null::${target}, $1::json)`
}

// Every page sends the same insert: its text is built once. The keys were checked against the
// schema, so the texts are few; the bound only guards against clients cycling through orders.
const plainInsertTexts = new Map<string, string>()
const MAX_PLAIN_INSERT_TEXTS = 256

function plainInsertText(table: string, keys: string[]): string {
  const key = `${table}\u0000${keys.join('\u0000')}`
  let text = plainInsertTexts.get(key)
  if (text === undefined) {
    text = insertText(table, keys)
    if (plainInsertTexts.size >= MAX_PLAIN_INSERT_TEXTS) plainInsertTexts.clear()
    plainInsertTexts.set(key, text)
  }
  return text
}

// PostgREST's upsert: ON CONFLICT on the ?on_conflict= columns. Merging updates the sent columns,
// so it needs update rights (anon has none: 42501); ignoring needs only insert rights.
function onConflict(keys: string[], upsert: Upsert): string {
  const target = upsert.target ? ` (${upsert.target.map(quoteIdent).join(', ')})` : ''
  if (upsert.resolution === 'ignore-duplicates' || keys.length === 0)
    return ` on conflict${target} do nothing`
  const assignments = keys.map((key) => `${quoteIdent(key)} = excluded.${quoteIdent(key)}`).join(', ')
  return ` on conflict${target} do update set ${assignments}`
}

export function readStatement(
  table: string,
  query: ReadQuery,
  withCount: boolean,
): TableStatement<{ body: string; count: number | undefined; returned: number }> {
  const target = `public.${quoteIdent(table)}`
  const limit = query.limit === undefined ? '' : ` limit ${query.limit}`
  const offset = query.offset === undefined ? '' : ` offset ${query.offset}`
  const page = `select ${selectList(query.columns)} from ${target}${query.where}${query.orderBy}${limit}${offset}`
  const count = withCount ? `(select count(*) from ${target}${query.where})` : 'null'
  return {
    sql: `select coalesce(json_agg(page), '[]')::text as body, ${count} as total, count(page) as returned
       from (${page}) page`,
    params: query.params,
    returnsBody: true,
    read({ rows }) {
      const [result] = rows as { body: string; total: string | number | null; returned: string | number }[]
      return {
        body: result?.body ?? '[]',
        count: result?.total === null || result?.total === undefined ? undefined : Number(result.total),
        returned: Number(result?.returned ?? 0),
      }
    },
  }
}

export function updateStatement(
  table: string,
  query: ReadQuery,
  changes: Row,
  returning: string[] | '*' | undefined,
): TableStatement<WriteResult> {
  const target = `public.${quoteIdent(table)}`
  const keys = Object.keys(changes)
  const params = [...query.params, JSON.stringify(changes)]
  const source = `json_populate_record(null::${target}, $${params.length}::json)`
  const assignments = keys.map((key) => `${quoteIdent(key)} = (${source}).${quoteIdent(key)}`).join(', ')
  return writeStatement(`update ${target} set ${assignments}${query.where}`, params, returning)
}

export function deleteStatement(
  table: string,
  query: ReadQuery,
  returning: string[] | '*' | undefined,
): TableStatement<WriteResult> {
  return writeStatement(`delete from public.${quoteIdent(table)}${query.where}`, query.params, returning)
}

const readAffected = ({ affected }: StatementResult): WriteResult => ({ body: undefined, affected })

/** A write as it is (its command tag counts the rows), or answering with the rows it wrote. */
function writeStatement(
  statement: string,
  params: unknown[],
  returning: string[] | '*' | undefined,
): TableStatement<WriteResult> {
  if (!returning) return { sql: statement, params, returnsBody: false, read: readAffected }
  return {
    sql: `with written as (${statement} returning ${selectList(returning)})
     select coalesce(json_agg(written), '[]')::text as body, count(*) as affected from written`,
    params,
    returnsBody: true,
    read({ rows }) {
      const [result] = rows as { body: string; affected: string | number }[]
      return { body: result?.body ?? '[]', affected: Number(result?.affected ?? 0) }
    },
  }
}
