import type { Queryable, Statement } from '../db/database'
import { type ReadQuery, selectList } from './query-params'
import type { Row } from './request-body'
import { quoteIdent } from './schema-cache'

// Every statement builds its JSON answer inside Postgres, as PostgREST does, so both drivers
// hand back one text value and types such as bigint and timestamptz serialise the same way.

/** A statement built here, and how to read the one row it answers with. */
export interface TableStatement<Result> extends Statement {
  read(rows: Record<string, unknown>[]): Result
}

/** Runs a statement inside a transaction that is already open (Database.asRole). */
export async function runIn<Result>(tx: Queryable, statement: TableStatement<Result>): Promise<Result> {
  return statement.read(await tx.query(statement.sql, [...statement.params]))
}

/** Inserts rows (keys absent from a row become null, as PostgREST's json_to_recordset does). */
export function insertStatement(
  table: string,
  keys: string[],
  rows: Row[],
  returning: string[] | '*' | undefined,
  upsert?: { resolution: 'merge-duplicates' | 'ignore-duplicates'; target: string[] | undefined },
): TableStatement<{ body: string | undefined; inserted: number }> {
  const target = `public.${quoteIdent(table)}`
  const columns = keys.map(quoteIdent).join(', ')
  const insert =
    (keys.length === 0
      ? `insert into ${target} select from json_array_elements($1::json)`
      : `insert into ${target} (${columns}) select ${columns} from json_populate_recordset(null::${target}, $1::json)`) +
    onConflict(keys, upsert)
  // RETURNING 1 needs no select privilege, so anon's plain insert works; a representation needs
  // it, and a role without it gets Postgres's 42501 and a rolled-back insert, as on PostgREST.
  return {
    sql: `with inserted as (${insert} returning ${returning ? selectList(returning) : '1'})
     select ${returning ? "coalesce(json_agg(inserted), '[]')::text" : 'null'} as body, count(*) as inserted from inserted`,
    params: [JSON.stringify(rows)],
    read(answer) {
      const [result] = answer as { body: string; inserted: string | number }[]
      return { body: returning ? (result?.body ?? '[]') : undefined, inserted: Number(result?.inserted ?? 0) }
    },
  }
}

// PostgREST's upsert: ON CONFLICT on the ?on_conflict= columns. Merging updates the sent columns,
// so it needs update rights (anon has none: 42501); ignoring needs only insert rights.
function onConflict(
  keys: string[],
  upsert: { resolution: 'merge-duplicates' | 'ignore-duplicates'; target: string[] | undefined } | undefined,
): string {
  if (!upsert) return ''
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
    read(answer) {
      const [result] = answer as { body: string; total: string | number | null; returned: string | number }[]
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
): TableStatement<{ body: string | undefined; affected: number }> {
  const target = `public.${quoteIdent(table)}`
  const keys = Object.keys(changes)
  const params = [...query.params, JSON.stringify(changes)]
  const source = `json_populate_record(null::${target}, $${params.length}::json)`
  const assignments = keys.map((key) => `${quoteIdent(key)} = (${source}).${quoteIdent(key)}`).join(', ')
  const statement = `update ${target} set ${assignments}${query.where} returning ${returning ? selectList(returning) : '1'}`
  return affectedJson(statement, params, Boolean(returning))
}

export function deleteStatement(
  table: string,
  query: ReadQuery,
  returning: string[] | '*' | undefined,
): TableStatement<{ body: string | undefined; affected: number }> {
  const statement = `delete from public.${quoteIdent(table)}${query.where} returning ${returning ? selectList(returning) : '1'}`
  return affectedJson(statement, query.params, Boolean(returning))
}

function affectedJson(
  statement: string,
  params: unknown[],
  withBody: boolean,
): TableStatement<{ body: string | undefined; affected: number }> {
  return {
    sql: `with changed as (${statement}) select coalesce(json_agg(changed), '[]')::text as body, count(*) as affected from changed`,
    params,
    read(answer) {
      const [result] = answer as { body: string; affected: string | number }[]
      return { body: withBody ? (result?.body ?? '[]') : undefined, affected: Number(result?.affected ?? 0) }
    },
  }
}
