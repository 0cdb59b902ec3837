import { escapeLiteral } from 'pg'
import { emailProblem } from './email-rule'

/**
 * The columns of an entry as `list` and `export` write it and `import` reads it back, in file
 * order: the one place a column is added (docs/decisions/032-export-import-stream-through-copy.md).
 */
export interface EntryColumn {
  /** Its name in public.waitlist, and in the CSV header. */
  name: string
  /** How export reads it from public.waitlist, as text. */
  read: string
  /** Its type in public.waitlist: import's staging table holds it so. */
  type: string
  /** Why import refuses a value in this column, or undefined when the value is fine. */
  problem(value: string): string | undefined
}

/** UTC with microseconds, e.g. 2026-11-01T09:00:00.123456Z: exact, so a file round-trips. */
export const CREATED_AT_UTC = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

// What `export` writes (UTC with microseconds), and any other ISO 8601 time that names its zone:
// a time without a zone would be read in the database session's zone, silently shifted.
const TIMESTAMP =
  /^(\d{4})-(\d\d)-(\d\d)[T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d)$/i

function createdAtProblem(value: string): string | undefined {
  if (value === '') return 'created_at is empty'
  const [, year, month, day] = TIMESTAMP.exec(value) ?? []
  // Date.UTC rolls 2026-02-30 over into March; the database refuses it, so must we.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (!year || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day))
    return `created_at ${JSON.stringify(value.slice(0, 40))} is not a time such as 2026-11-01T09:00:00.000000Z`
  return undefined
}

export const ENTRY_COLUMNS: readonly EntryColumn[] = [
  { name: 'email', read: 'email::text', type: 'text', problem: emailProblem },
  { name: 'created_at', read: CREATED_AT_UTC, type: 'timestamptz', problem: createdAtProblem },
]

/** Where each named column sits in a row of ENTRY_COLUMNS. */
export function columnIndex(name: string): number {
  const index = ENTRY_COLUMNS.findIndex((column) => column.name === name)
  if (index < 0) throw new Error(`no entry column ${name}`)
  return index
}

/**
 * Every entry, oldest first (the order of `list` and `export`), as COPY text. COPY takes no
 * parameters, so the one value, --since (which the CLI has checked is a date), is quoted here.
 */
export function copyEntriesSql(since?: string): string {
  const where = since === undefined ? '' : `where created_at >= ${escapeLiteral(since)}::timestamptz`
  const columns = ENTRY_COLUMNS.map((column) => column.read).join(', ')
  return `copy (select ${columns} from public.waitlist ${where} order by waitlist.created_at, waitlist.id) to stdout`
}
