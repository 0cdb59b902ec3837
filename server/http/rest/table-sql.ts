import type { Database, Statement, StatementResult } from '../../db/database'
import { quoteIdent } from '../../db/sql-identifier'
import type { ReadQuery } from './rest-request'

// The owner's read builds its JSON inside Postgres, as PostgREST does, so both drivers hand back one
// text and bigint or timestamptz serialise the same way. (The waitlist's insert is the signup's:
// server/waitlist/signup.ts.)

/** A statement built here, and how to read what it answers. */
export interface TableStatement<Result> extends Statement {
  read(result: StatementResult): Result
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
