import type { Database } from '../../db/database'

/** A table's columns, in their order, and the column lists of its unique keys. */
export interface TableColumns extends ReadonlySet<string> {
  /** Each unique index that ON CONFLICT can name (no expression, no WHERE), its columns in order. */
  readonly uniqueKeys?: readonly (readonly string[])[]
}

/** Tables of the exposed schema and their columns, read once at start-up as PostgREST does. */
export type SchemaCache = ReadonlyMap<string, TableColumns>

type MutableColumns = Set<string> & { uniqueKeys: string[][] }

export async function loadSchemaCache(db: Database): Promise<SchemaCache> {
  const rows = await db.query<{ table_name: string; column_name: string }>(
    `select c.relname as table_name, a.attname as column_name
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`,
  )
  const tables = new Map<string, MutableColumns>()
  for (const { table_name, column_name } of rows) {
    const columns = tables.get(table_name) ?? Object.assign(new Set<string>(), { uniqueKeys: [] })
    columns.add(column_name)
    tables.set(table_name, columns)
  }
  for (const { table_name, columns } of await uniqueKeys(db)) tables.get(table_name)?.uniqueKeys.push(columns)
  return tables
}

/** The unique indexes of the exposed tables that an ON CONFLICT column list can infer. */
function uniqueKeys(db: Database) {
  return db.query<{ table_name: string; columns: string[] }>(
    `select c.relname as table_name,
            array(select a.attname::text
                    from generate_series(0, i.indnkeyatts - 1) as k
                    join pg_attribute a on a.attrelid = c.oid and a.attnum = i.indkey[k]
                   order by k) as columns
       from pg_index i
       join pg_class c on c.oid = i.indrelid
       join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and i.indisunique and i.indisvalid
        and i.indpred is null and i.indexprs is null
      order by c.relname, i.indexrelid`,
  )
}
