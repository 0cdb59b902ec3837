import type { Database, Statement, StatementResult } from '../../db/database'
import { quoteIdent } from '../../db/sql-identifier'
import type { ReadQuery, Row } from './rest-request'

// A statement that answers with rows builds its JSON inside Postgres, as PostgREST does, so both
// drivers hand back one text and bigint or timestamptz serialise the same way. An insert with no
// answer asked for is the bare statement: its command tag counts the rows.

/** A statement built here, and how to read what it answers. */
export interface TableStatement<Result> extends Statement {
  read(result: StatementResult): Result
}

/**
 * Inserts rows (keys absent from a row become null, as PostgREST's json_to_recordset does); answers
 * how many, and as JSON the columns `returning` lists (parseSelect's SQL), if any.
 */
export function insertStatement(
  table: string,
  keys: string[],
  rows: Row[],
  returning: string | undefined,
): TableStatement<{ body: string | undefined; affected: number }> {
  const insert = insertText(table, keys)
  const params = [JSON.stringify(rows)]
  // The page's insert is one of a handful of texts (its columns in table order): worth preparing. A representation is parsed
  // each time, never left behind as a named statement (ADR 024); without select rights it is
  // Postgres's 42501 and a rolled-back insert, as on PostgREST.
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

function insertText(table: string, keys: string[]): string {
  const target = `public.${quoteIdent(table)}`
  if (keys.length === 0) return `insert into ${target} select from json_array_elements($1::json)`
  const columns = keys.map(quoteIdent).join(', ')
  return `insert into ${target} (${columns}) select ${columns} from json_populate_recordset(null::${target}, $1::json)`
}

export function readStatement(
  table: string,
  query: ReadQuery,
  withCount: boolean,
): TableStatement<{ body: string; count: number | undefined; returned: number }> {
  const target = `public.${quoteIdent(table)}`
  const limit = query.limit === undefined ? '' : ` limit ${query.limit}`
  const offset = query.offset === undefined ? '' : ` offset ${query.offset}`
  const page = `select ${query.columns} from ${target}${query.orderBy}${limit}${offset}`
  return {
    sql: `select coalesce(json_agg(page), '[]')::text as body, ${withCount ? `(select count(*) from ${target})` : 'null'} as total, count(page) as returned
       from (${page}) page`,
    params: [],
    read({ rows: [result] }) {
      const { body, total, returned } = result as { body: string; total: string | null; returned: string }
      return { body, count: total === null ? undefined : Number(total), returned: Number(returned) }
    },
  }
}

/** Tables of the exposed schema and their columns in order, read once at start-up as PostgREST does. */
export type SchemaCache = ReadonlyMap<string, ReadonlySet<string>>

export async function loadSchemaCache(db: Database): Promise<SchemaCache> {
  const rows = await db.query<{ table_name: string; column_name: string }>(
    `select c.relname as table_name, a.attname as column_name
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`,
  )
  const tables = new Map<string, Set<string>>()
  for (const { table_name, column_name } of rows)
    tables.set(table_name, (tables.get(table_name) ?? new Set()).add(column_name))
  return tables
}
