import { missingColumn, noConflictConstraint, unparsableQuery } from './postgrest-error'
import { parseColumnsParam } from './request-body'
import type { TableColumns } from './schema-cache'

/**
 * `?on_conflict=`, checked before any SQL: columns of the table, each named once, that are exactly
 * one of its unique keys. The statement then names that key as the schema cache holds it, so the
 * upsert texts are a small fixed set whatever the client writes. Postgres would refuse any other
 * list too (42P10), but only after parsing a statement built from it, and a named prepared
 * statement outlives the refusal (ADR 024).
 */
export function conflictTarget(
  value: string | null,
  table: string,
  columns: TableColumns,
): readonly string[] | undefined {
  const names = parseColumnsParam(value)
  if (!names) return undefined
  for (const name of names) if (!columns.has(name)) throw missingColumn(name, table)
  if (new Set(names).size !== names.length) {
    throw unparsableQuery(
      `"failed to parse on_conflict parameter (${(value ?? '').slice(0, 128)})"`,
      'A column is named more than once',
    )
  }
  const key = columns.uniqueKeys?.find(
    (candidate) => candidate.length === names.length && candidate.every((column) => names.includes(column)),
  )
  if (!key) throw noConflictConstraint()
  return key
}
