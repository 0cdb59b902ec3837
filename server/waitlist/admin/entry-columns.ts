import type { Readable } from 'node:stream'
import { escapeLiteral } from 'pg'
import { ENTRY_STATUSES, isEntryStatus } from '../../../contract/entry-statuses'
import { checkAnswers, type SignupQuestion } from '../../../contract/signup-questions'
import { signupQuestions } from '../../../contract/site-config'
import type { CopyTransaction } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { consentColumns } from './consent-columns'
import { emailProblem } from './email-rule'
import { bindLiterals, type EntryFilter, filterConditions, whereOf } from './entry-filter'

/**
 * The columns of an entry as `list` and `export` write it and `import` reads it back, in file
 * order: the one place a column is added (docs/decisions/032-export-import-stream-through-copy.md).
 */
export interface EntryColumn {
  /** Its name in the CSV header, and in import's staging table. */
  name: string
  /** How export reads it from ENTRY_SOURCE, as text ('' for none). */
  read: string
  /** Its type in import's staging table, where an empty field is NULL. */
  type: string
  /**
   * The table it lives in: import adds the entry to the first (its consent record too:
   * consent-columns.ts), restores its status in the second, and its answers (one jsonb object, a
   * key per question) in the third.
   */
  table: 'waitlist' | 'entry_status' | 'entry_answers'
  /**
   * What import takes for an empty cell, or for a file without this column (a plain list of
   * addresses, or an export from before statuses), given the import's own time: '' is none. A
   * column without it (the address) must be in the file, filled.
   */
  whenMissing?: (importTime: string) => string
  /** Why import refuses a value in this column, or undefined when the value is fine. */
  problem(value: string): string | undefined
  /** What import stages for a good value, when not the value itself (an answer, as checkAnswers keeps it). */
  stage?: (value: string) => string
}

/**
 * What export reads: each entry beside its status, which it has no row for while waiting (ADR 034),
 * and its answers, which it has no row for when it gave none. A query that reads no answer pays
 * nothing for them: the join is on the answers' key, so PostgreSQL drops it from the plan.
 */
export const ENTRY_SOURCE =
  'public.waitlist left join private.entry_status on entry_status.waitlist_id = waitlist.id' +
  ' left join private.entry_answers on entry_answers.waitlist_id = waitlist.id'

/** UTC with microseconds, e.g. 2026-11-01T09:00:00.123456Z: exact, so a file round-trips. */
export const CREATED_AT_UTC = isoUtc('created_at')

// What `export` writes (UTC with microseconds), and any other ISO 8601 time that names its zone:
// a time without a zone would be read in the database session's zone, silently shifted.
const TIMESTAMP =
  /^(\d{4})-(\d\d)-(\d\d)[T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d)$/i

function timeProblem(column: string, value: string): string | undefined {
  if (value === '') return `${column} is empty`
  const [, year, month, day] = TIMESTAMP.exec(value) ?? []
  // Date.UTC rolls 2026-02-30 over into March; the database refuses it, so must we.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (!year || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day))
    return `${column} ${JSON.stringify(value.slice(0, 40))} is not a time such as 2026-11-01T09:00:00.000000Z`
  return undefined
}

function statusProblem(value: string): string | undefined {
  if (isEntryStatus(value)) return undefined
  return `status ${JSON.stringify(value.slice(0, 20))} is not one of ${ENTRY_STATUSES.join(', ')}`
}

/** When an entry's status last reached `name` (confirmed_at…): empty when it never did. */
function statusDate(name: string): EntryColumn {
  return {
    name,
    read: `coalesce(${isoUtc(`entry_status.${name}`)}, '')`,
    type: 'timestamptz',
    table: 'entry_status',
    whenMissing: () => '',
    problem: (value) => (value === '' ? undefined : timeProblem(name, value)),
  }
}

/** The signup's source, as the sources report names it; empty for none (an entry from before, an import). */
const SOURCE: EntryColumn = {
  name: 'source',
  read: `coalesce(waitlist.source, '')`,
  type: 'text',
  table: 'waitlist',
  whenMissing: () => '',
  problem: (value) =>
    value.length > 100 ? `source ${JSON.stringify(value.slice(0, 40))}… is over 100 characters` : undefined,
}

// A question's id names a column of the CSV and of import's staging table.
const QUESTION_ID = /^[a-z][a-z0-9_]{0,40}$/

/**
 * One question's answer (`answer_role`…), checked by the one validator every door uses
 * (contract/signup-questions.ts): a choice exactly, a text at most its length, stored trimmed.
 */
function answerColumn(question: SignupQuestion): EntryColumn {
  if (!QUESTION_ID.test(question.id))
    throw new Error(`signupQuestions: the id ${JSON.stringify(question.id)} is not a-z, 0-9 and _`)
  const name = `answer_${question.id}`
  return {
    name,
    read: `coalesce(entry_answers.answers ->> ${escapeLiteral(question.id)}, '')`,
    type: 'text',
    table: 'entry_answers',
    whenMissing: () => '',
    problem(value) {
      const checked = checkAnswers([question], { [question.id]: value })
      return 'problem' in checked ? `${name}: ${checked.problem}` : undefined
    },
    stage(value) {
      const checked = checkAnswers([question], { [question.id]: value })
      return 'answers' in checked ? (checked.answers[question.id] ?? '') : value
    },
  }
}

/** The question each answer column stands for, by column name. */
export const ANSWER_COLUMNS: ReadonlyMap<string, SignupQuestion> = new Map(
  signupQuestions.map((question) => [`answer_${question.id}`, question]),
)

/**
 * In file order. The columns of earlier exports come first, where they always were, so a script
 * that reads a column by its place still finds it; joined_at, the source, the answers and the
 * consent record follow.
 */
export const ENTRY_COLUMNS: readonly EntryColumn[] = [
  { name: 'email', read: 'email::text', type: 'text not null', table: 'waitlist', problem: emailProblem },
  {
    name: 'created_at',
    read: CREATED_AT_UTC,
    type: 'timestamptz not null',
    table: 'waitlist',
    // A plain list has no signup times: its addresses join the list now, in the file's order.
    whenMissing: (importTime) => importTime,
    problem: (value) => (value === '' ? undefined : timeProblem('created_at', value)),
  },
  // Statuses (ADR 039): an export carries them so that a restored list never mails an address
  // that unsubscribed, nor invites anyone twice. A list without them is the lab's own: waiting.
  {
    name: 'status',
    read: `coalesce(entry_status.status, 'waiting')`,
    type: 'text not null',
    table: 'entry_status',
    whenMissing: () => 'waiting',
    problem: (value) => (value === '' ? undefined : statusProblem(value)),
  },
  ...['confirmed_at', 'invited_at', 'unsubscribed_at', 'bounced_at', 'joined_at'].map(statusDate),
  SOURCE,
  ...signupQuestions.map(answerColumn),
  ...consentColumns(timeProblem),
]

/**
 * The columns a file's header names, in its order: `email`, and any of the others export writes,
 * in any letter case and order (an export's header, an older one's, or a plain list's `email`);
 * else what is wrong with it.
 */
export function headerColumns(header: readonly string[]): readonly EntryColumn[] | { problem: string } {
  const columns: EntryColumn[] = []
  for (const given of header) {
    const name = given.trim().toLowerCase()
    const column = ENTRY_COLUMNS.find((known) => known.name === name)
    if (!column) return { problem: `${JSON.stringify(given.slice(0, 40))} is not a column import knows` }
    if (columns.includes(column)) return { problem: `${name} is named twice` }
    columns.push(column)
  }
  const required = ENTRY_COLUMNS.filter((column) => !column.whenMissing && !columns.includes(column))
  if (required.length > 0)
    return { problem: `it has no ${required.map((column) => column.name).join(', ')} column` }
  return columns
}

/**
 * A record of a file with `columns` as import stages it: every one of ENTRY_COLUMNS, in their
 * order, each empty or absent one as its `whenMissing` says.
 */
export function allColumns(
  fields: readonly string[],
  columns: readonly EntryColumn[],
  importTime: string,
): string[] {
  return ENTRY_COLUMNS.map((column) => {
    const index = columns.indexOf(column)
    const value = index < 0 ? '' : (column.stage ?? String)(fields[index] ?? '')
    return value === '' && column.whenMissing ? column.whenMissing(importTime) : value
  })
}

/** Where each named column sits in a row of ENTRY_COLUMNS. */
export function columnIndex(name: string): number {
  const index = ENTRY_COLUMNS.findIndex((column) => column.name === name)
  if (index < 0) throw new Error(`no entry column ${name}`)
  return index
}

/** The columns of these names, in this order. */
export const columnsNamed = (...names: string[]): EntryColumn[] =>
  names.map((name) => ENTRY_COLUMNS[columnIndex(name)] as EntryColumn)

/**
 * The entries the filter matches, oldest first (the order of `list` and `export`), streamed as COPY
 * text: every column, or those given (`list` reads the three it prints, and so no answer at all).
 * COPY takes no parameters, so the filter's values are quoted literals (entry-filter.ts).
 */
export function copyEntries(
  tx: CopyTransaction,
  filter: EntryFilter = {},
  columns: readonly EntryColumn[] = ENTRY_COLUMNS,
): Readable {
  const where = whereOf(filterConditions(filter, bindLiterals))
  const read = columns.map((column) => column.read).join(', ')
  return tx.copyTo(
    `copy (select ${read} from ${ENTRY_SOURCE} ${where} order by waitlist.created_at, waitlist.id) to stdout`,
  )
}
