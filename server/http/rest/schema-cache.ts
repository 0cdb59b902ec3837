import type { Database } from '../../db/database'

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
