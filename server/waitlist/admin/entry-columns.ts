import type { Readable } from 'node:stream'
import { escapeLiteral } from 'pg'
import { plainLine } from '../../../contract/clean-text'
import { ENTRY_STATUSES, isEntryStatus } from '../../../contract/entry-statuses'
import { checkAnswers, type SignupQuestion } from '../../../contract/signup-questions'
import { signupQuestions } from '../../../contract/site-config'
import { cleanSource } from '../../analytics/source-of'
import type { CopyTransaction } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { consentColumns } from './consent-columns'
import { emailProblem } from './email-rule'
import { bindLiterals, type EntryFilter, filterConditions, whereOf } from './entry-filter'
import { MAX_TAGS, readNote, readTag } from './entry-marks'
import { type EntrySort, OLDEST_FIRST, orderOf } from './entry-sort'

/**
 * The columns of an entry as `list` and `export` write it and `import` reads it back, in file
 * order: the one place a column is added (docs/decisions/032-export-import-stream-through-copy.md).
 * How import reads a file's own header and values into them (a question's bare id, a date, --map)
 * is owner/cli/import-layout.ts's.
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
   * consent-columns.ts), restores its status in the second, its answers (one jsonb object, a key
   * per question) in the third, the team's tags and note in the fourth, and the name in the fifth.
   */
  table: 'waitlist' | 'entry_status' | 'entry_answers' | 'entry_marks' | 'entry_names'
  /**
   * What import takes for an empty cell, or for a file without this column (a plain list of
   * addresses, or an export from before statuses), given the import's own time: '' is none. A
   * column without it (the address) must be in the file, filled.
   */
  whenMissing?: (importTime: string) => string
  /**
   * Why import refuses a value in this column, in words that follow the value ("not a valid e-mail
   * address"), or undefined when the value is fine.
   */
  problem(value: string): string | undefined
  /** What import stages for a good value, when not the value itself (a time in UTC, an answer trimmed). */
  stage?: (value: string) => string
  /** The question an answer column stands for. */
  question?: SignupQuestion
}

/**
 * What export reads: each entry beside its status, which it has no row for while waiting (ADR 034),
 * its answers, which it has no row for when it gave none, and the team's marks, likewise. A query
 * that reads none of them pays nothing for them: each join is on its table's key, so PostgreSQL
 * drops it from the plan.
 */
export const ENTRY_SOURCE =
  'public.waitlist left join private.entry_status on entry_status.waitlist_id = waitlist.id' +
  ' left join private.entry_answers on entry_answers.waitlist_id = waitlist.id' +
  ' left join private.entry_marks on entry_marks.waitlist_id = waitlist.id' +
  ' left join private.entry_names on entry_names.waitlist_id = waitlist.id'

/** UTC with microseconds, e.g. 2026-11-01T09:00:00.123456Z: exact, so a file round-trips. */
export const CREATED_AT_UTC = isoUtc('created_at')

const TIME_FORMS =
  'a date or time such as 2026-09-01, 2026-09-01 09:00 (UTC), 2026-09-01T09:00:00+02:00 or Unix seconds'

// A date, or a date and time with or without its zone (none: UTC), as the lab's own sheet may hold
// them; `export` writes the last form, UTC with microseconds.
const DATE_TIME =
  /^(\d{4})-(\d\d)-(\d\d)(?:[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(\.\d{1,6})?)?\s*(Z|[+-]\d\d(?::?\d\d)?)?)?$/i
// Unix time in seconds: ten digits from 2001 to 2286, nine before (an eight-digit 20260901 is a date
// typed without its dashes, refused rather than read as 1970).
const UNIX_SECONDS = /^(\d{9,10})(\.\d{1,6})?$/

/**
 * The time a cell holds, as ISO 8601 that PostgreSQL reads exactly (a date is its midnight UTC, a
 * time without a zone is UTC), or undefined when it holds none.
 */
export function readTime(value: string): string | undefined {
  const text = value.trim()
  const unix = UNIX_SECONDS.exec(text)
  if (unix) return new Date(Number(text) * 1000).toISOString()
  const [, year, month, day, hour, minute, second, fraction, zone] = DATE_TIME.exec(text) ?? []
  // Date.UTC rolls 2026-02-30 over into March; the database refuses it, so must we.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (!year || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return undefined
  if (hour === undefined) return `${year}-${month}-${day}T00:00:00Z`
  const offset =
    zone === undefined || zone.toUpperCase() === 'Z'
      ? 'Z'
      : `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '') || '00'}`
  return `${year}-${month}-${day}T${hour}:${minute}:${second ?? '00'}${fraction ?? ''}${offset}`
}

const timeProblem = (value: string) => (value === '' || readTime(value) ? undefined : `not ${TIME_FORMS}`)
const timeStage = (value: string) => (value === '' ? '' : (readTime(value) ?? value))

function timeColumn(name: string, column: Omit<EntryColumn, 'problem' | 'stage' | 'name'>): EntryColumn {
  return { name, ...column, problem: timeProblem, stage: timeStage }
}

function statusProblem(value: string): string | undefined {
  if (isEntryStatus(value)) return undefined
  return `not one of ${ENTRY_STATUSES.join(', ')}`
}

/** When an entry's status last reached `name` (confirmed_at…): empty when it never did. */
function statusDate(name: string): EntryColumn {
  return timeColumn(name, {
    read: `coalesce(${isoUtc(`entry_status.${name}`)}, '')`,
    type: 'timestamptz',
    table: 'entry_status',
    whenMissing: () => '',
  })
}

/** The signup's source, as the sources report names it; empty for none (an entry from before, an import). */
const SOURCE: EntryColumn = {
  name: 'source',
  read: `coalesce(waitlist.source, '')`,
  type: 'text',
  table: 'waitlist',
  whenMissing: () => '',
  problem: (value) => (value.trim().length > 100 ? 'over 100 characters' : undefined),
  // One source, one spelling (migration 20261207530000): "Newsletter" is the page's "newsletter".
  stage: cleanSource,
}

// A question's id names a column of the CSV and of import's staging table.
const QUESTION_ID = /^[a-z][a-z0-9_]{0,40}$/

/**
 * One question's answer (`answer_role`…), checked by the one validator every door uses
 * (contract/signup-questions.ts): a choice exactly (import-layout.ts has matched the file's own
 * words to it by then), a text at most its length, stored trimmed.
 */
function answerColumn(question: SignupQuestion): EntryColumn {
  if (!QUESTION_ID.test(question.id))
    throw new Error(`signupQuestions: the id ${JSON.stringify(question.id)} is not a-z, 0-9 and _`)
  return {
    name: `answer_${question.id}`,
    read: `coalesce(entry_answers.answers ->> ${escapeLiteral(question.id)}, '')`,
    type: 'text',
    table: 'entry_answers',
    question,
    whenMissing: () => '',
    problem(value) {
      const checked = checkAnswers([question], { [question.id]: value })
      if (!('problem' in checked)) return undefined
      if (question.kind === 'choice') return `not one of ${question.choices.join(', ')}`
      return value.trim().length > question.maxLength
        ? `over ${question.maxLength} characters`
        : checked.problem
    },
    stage(value) {
      const checked = checkAnswers([question], { [question.id]: value })
      return 'answers' in checked ? (checked.answers[question.id] ?? '') : value
    },
  }
}

/** The team's tags, space-separated in a cell (`shortlist partner`), each as readTag keeps it. */
const TAGS: EntryColumn = {
  name: 'tags',
  read: `coalesce(array_to_string(entry_marks.tags, ' '), '')`,
  type: 'text',
  table: 'entry_marks',
  whenMissing: () => '',
  problem(value) {
    const words = value.split(/\s+/).filter(Boolean)
    const bad = words.map(readTag).find((read) => 'problem' in read)
    if (bad && 'problem' in bad) return bad.problem
    return new Set(words).size > MAX_TAGS ? `more than ${MAX_TAGS} tags` : undefined
  },
  stage: (value) =>
    [
      ...new Set(
        value
          .split(/\s+/)
          .filter(Boolean)
          .map((word) => word.toLowerCase()),
      ),
    ]
      .sort()
      .join(' '),
}

/** The team's note on the entry. */
const NOTE: EntryColumn = {
  name: 'note',
  read: `coalesce(entry_marks.note, '')`,
  type: 'text',
  table: 'entry_marks',
  whenMissing: () => '',
  problem(value) {
    const read = readNote(value)
    return 'problem' in read ? read.problem : undefined
  },
  stage(value) {
    const read = readNote(value)
    return 'note' in read ? read.note : value
  },
}

/**
 * The person's name (private.entry_names), one line of at most 200 characters; an import joins a
 * first and a last name into it (owner/cli/import-row.ts).
 */
const NAME: EntryColumn = {
  name: 'name',
  read: `coalesce(entry_names.name, '')`,
  type: 'text',
  table: 'entry_names',
  whenMissing: () => '',
  problem: (value) => (value.trim().length > 200 ? 'over 200 characters' : undefined),
  stage: (value) => plainLine(value).trim(),
}

/** The question each answer column stands for, by column name. */
export const ANSWER_COLUMNS: ReadonlyMap<string, SignupQuestion> = new Map(
  signupQuestions.map((question) => [`answer_${question.id}`, question]),
)

/**
 * In file order. The columns of earlier exports come first, where they always were, so a script
 * that reads a column by its place still finds it; joined_at, the source, the answers, the team's
 * tags and note, then the consent record and the name follow.
 */
export const ENTRY_COLUMNS: readonly EntryColumn[] = [
  { name: 'email', read: 'email::text', type: 'text not null', table: 'waitlist', problem: emailProblem },
  // A plain list has no signup times: its addresses join the list now, in the file's order.
  timeColumn('created_at', {
    read: CREATED_AT_UTC,
    type: 'timestamptz not null',
    table: 'waitlist',
    whenMissing: (importTime) => importTime,
  }),
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
  TAGS,
  NOTE,
  ...consentColumns({ problem: timeProblem, stage: timeStage }),
  // Last, so that a script reading an earlier export's columns by place still finds them.
  NAME,
]

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
 * The entries the filter matches, oldest first (the order of `list` and `export`) or in the order
 * `list --sort` asks (the studio table's, entry-sort.ts), streamed as COPY text: every column, or
 * those given (`list` reads the three it prints, and so no answer at all). COPY takes no
 * parameters, so the filter's values are quoted literals (entry-filter.ts).
 */
export function copyEntries(
  tx: CopyTransaction,
  filter: EntryFilter = {},
  columns: readonly Pick<EntryColumn, 'read'>[] = ENTRY_COLUMNS,
  sort: EntrySort = OLDEST_FIRST,
): Readable {
  const where = whereOf(filterConditions(filter, bindLiterals))
  const read = columns.map((column) => column.read).join(', ')
  return tx.copyTo(`copy (select ${read} from ${ENTRY_SOURCE} ${where} order by ${orderOf(sort)}) to stdout`)
}
