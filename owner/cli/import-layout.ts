import type { SignupQuestion } from '../../contract/signup-questions'
import { signupQuestions } from '../../contract/site-config'
import { emailProblem } from '../../server/admin/basics'
import { ENTRY_COLUMNS, type EntryColumn } from '../../server/admin/import'
import type { Delimiter } from './csv-reader'
import type { DateOrder } from './import-dates'
import { fieldOfHeader, foldHeader } from './import-headers'

/**
 * How `import` reads a file's columns (ADR 116): an export's own names, a question's column by its
 * bare id (`role` as `answer_role`), the headers the tools labs use write (import-headers.ts), the
 * owner's `--column "HEADER=FIELD"`, and the address by its contents when no header names it. A
 * column none of these places is kept on the entry as its own detail (header → value), unless
 * `--ignore-unknown`. What a row then becomes is import-row.ts's.
 */

/** The lab's own words for a question's choices: question id → the word in lower case → the choice. */
export type ChoiceMaps = ReadonlyMap<string, ReadonlyMap<string, string>>

export interface ImportOptions {
  maps: ChoiceMaps
  /** Columns import does not place are left out, rather than kept as the entry's details. */
  ignoreUnknown: boolean
  /** `--column "HEADER=FIELD"`: the folded header → the field, `-` for left out. */
  columns: ReadonlyMap<string, string>
  /** `--dates`: how a slashed date reads, when the file cannot tell. */
  dates?: DateOrder
  /** `--timezone`: the zone of a time written without one (UTC when none). */
  timeZone?: string
}

export const PLAIN_IMPORT: ImportOptions = { maps: new Map(), ignoreUnknown: false, columns: new Map() }

/** What one column of the file is read as. */
export type FieldUse =
  | { header: string; column: EntryColumn; approval?: true }
  | { header: string; part: 'first_name' | 'last_name' }
  | { header: string; into: 'details' | 'ignored' | 'left out' | 'bookkeeping' }

/** A file's columns, as its header and first rows give them, and the delimiter between its cells. */
export interface FileLayout {
  uses: readonly FieldUse[]
  delimiter: Delimiter
  /** The header line's cells, NUL between: the file read again must start with it. */
  header: string
  /** Why a column went where it did when its header alone did not say (the address by its contents). */
  found?: string
}

const fold = (text: string) => text.trim().toLowerCase()

/** The fields `--column` may name, besides a question's id. */
export const COLUMN_FIELDS = [
  'email',
  'name',
  'first_name',
  'last_name',
  'created_at',
  'source',
  'tags',
  'note',
  'status',
]

/** `--map ID:VALUE=CHOICE`, each naming a choice question and one of its choices (any letter case). */
export function readMaps(given: readonly string[]): { maps: ChoiceMaps } | { problem: string } {
  const maps = new Map<string, Map<string, string>>()
  const choiceIds = signupQuestions.filter((question) => question.kind === 'choice').map(({ id }) => id)
  for (const text of given) {
    const [, id, word, target] = /^([^:=]+):([^=]+)=(.+)$/.exec(text) ?? []
    const question = signupQuestions.find((candidate) => candidate.id === id?.trim())
    if (!id || !word || !target || question?.kind !== 'choice')
      return {
        problem: `--map needs ID:VALUE=CHOICE with ID one of ${choiceIds.join(', ')} (role:Engineer=Engineering), not ${JSON.stringify(text.slice(0, 60))}`,
      }
    const choice = question.choices.find((candidate) => fold(candidate) === fold(target))
    if (!choice)
      return {
        problem: `--map ${question.id}: ${JSON.stringify(target.trim())} is not one of ${question.choices.join(', ')}`,
      }
    const words = maps.get(question.id) ?? new Map<string, string>()
    words.set(fold(word), choice)
    maps.set(question.id, words)
  }
  return { maps }
}

/** The entry column a field names: a column's own name, or a question's bare id. */
function columnNamed(field: string): EntryColumn | undefined {
  const name = fold(field)
  return ENTRY_COLUMNS.find((column) => column.name === name || column.question?.id === name)
}

/** `--column "HEADER=FIELD"`, repeatable: the header in any letter case → a field, or `-`. */
export function readColumns(
  given: readonly string[],
): { columns: Map<string, string> } | { problem: string } {
  const columns = new Map<string, string>()
  for (const text of given) {
    const at = text.lastIndexOf('=')
    const header = text.slice(0, Math.max(at, 0)).trim()
    const field = fold(text.slice(at + 1))
    const known = field === '-' || COLUMN_FIELDS.includes(field) || columnNamed(field) !== undefined
    if (at < 1 || !header || !known) {
      const ids = signupQuestions.map((question) => question.id).join(', ')
      return {
        problem: `--column needs "HEADER=FIELD" with FIELD one of ${COLUMN_FIELDS.join(', ')}, a question's id (${ids}) or - to leave it out, not ${JSON.stringify(text.slice(0, 80))}`,
      }
    }
    columns.set(foldHeader(header), field)
  }
  return { columns }
}

/** Where a field puts a column: an entry column, a part of the name, or left out. */
function placeOf(header: string, field: string): FieldUse | undefined {
  if (field === '-') return { header, into: 'left out' }
  if (field === 'first_name' || field === 'last_name') return { header, part: field }
  if (field === 'approval_status') {
    const status = columnNamed('status')
    return status && { header, column: status, approval: true }
  }
  const column = columnNamed(field)
  return column && { header, column }
}

/** The key a use fills: two columns may not fill the same one. */
const slotOf = (use: FieldUse) => ('column' in use ? use.column.name : 'part' in use ? use.part : undefined)

// Enough of a file's first rows to tell its address column by what it holds.
const EMAIL_SHARE = 0.5

/** The column most of whose sample cells are addresses, when no header named one. */
function emailByContents(uses: FieldUse[], sample: readonly (readonly string[])[]): number {
  let best = -1
  let bestShare = EMAIL_SHARE
  for (const [index, use] of uses.entries()) {
    if (!('into' in use) || use.into === 'left out') continue
    const cells = sample.map((fields) => (fields[index] ?? '').trim()).filter(Boolean)
    const share = cells.filter((cell) => emailProblem(cell) === undefined).length / Math.max(cells.length, 1)
    if (share > bestShare) [best, bestShare] = [index, share]
  }
  return best
}

/**
 * The header read into a layout, with the first rows (`sample`) to find the address column by its
 * contents if no header names it. Else what is wrong with it.
 */
export function readLayout(
  header: readonly string[],
  options: ImportOptions,
  delimiter: Delimiter = ',',
  sample: readonly (readonly string[])[] = [],
): FileLayout | { problem: string } {
  const uses: FieldUse[] = []
  const slots = new Map<string, string>()
  const unplaced = options.ignoreUnknown ? 'ignored' : 'details'
  for (const given of header) {
    const label = given.trim() || `column ${uses.length + 1}`
    const asked = options.columns.get(foldHeader(given))
    const exact = columnNamed(given)
    const byTool = asked || exact ? undefined : fieldOfHeader(given)
    const use =
      byTool === 'bookkeeping'
        ? { header: label, into: 'bookkeeping' as const }
        : placeOf(label, asked ?? exact?.name ?? byTool ?? '')
    const slot = use && slotOf(use)
    const twice = slot ? slots.get(slot) : undefined
    // Two columns the owner or the export named alike is a mistake; a tool's second alike is a detail.
    if (twice && !byTool)
      return { problem: `${JSON.stringify(twice)} and ${JSON.stringify(given)} both name ${slot}` }
    if (!use || twice) {
      uses.push({ header: label, into: unplaced })
      continue
    }
    if (slot) slots.set(slot, label)
    uses.push(use)
  }
  const missing = [...options.columns.keys()].filter(
    (asked) => !header.some((given) => foldHeader(given) === asked),
  )
  if (missing.length > 0)
    return { problem: `--column names a header it does not have: ${missing.join(', ')}` }
  let found: string | undefined
  // A header that is itself an address is a list without a header: its first address is not a name.
  if (!slots.has('email') && header.some((given) => emailProblem(given.trim()) === undefined))
    return { problem: 'it has no email column' }
  if (!slots.has('email')) {
    const index = emailByContents(uses, sample)
    const email = columnNamed('email')
    const use = uses[index]
    if (!use || !email) return { problem: 'it has no email column, by its header or its contents' }
    uses[index] = { header: use.header, column: email }
    found = `${use.header} holds addresses`
  }
  return { uses, delimiter, header: header.join('\u0000'), found }
}

/** A choice as the question names it: the owner's --map first, then the choice in any letter case. */
export function choiceOf(question: SignupQuestion, value: string, maps: ChoiceMaps): string {
  if (question.kind !== 'choice') return value
  const word = fold(value)
  const mapped = maps.get(question.id)?.get(word)
  if (mapped) return mapped
  return question.choices.find((choice) => fold(choice) === word) ?? value
}

const PLACES: Readonly<Record<string, string>> = {
  email: 'the address',
  created_at: 'when they signed up (a date is midnight; a time without a zone is UTC unless --timezone)',
  status: 'the status',
  name: 'the name',
  source: 'the source',
  tags: 'the tags (split at commas and spaces, quotes removed)',
  note: "the team's note",
  confirmed_at: 'when they confirmed',
  unsubscribed_at: 'when they unsubscribed (so: unsubscribed)',
  bounced_at: 'when their address bounced (so: bounced)',
  consent_at: 'the consent record: when',
  consent_door: 'the consent record: the door (none: import, now, naming the file)',
  consent_words: "the consent record: the words' version",
  consent_agent: 'the consent record: the agent, as it declared itself',
  confirmed_from: 'the consent record: the network the confirmation came from',
}

const INTO: Readonly<Record<string, string>> = {
  details: 'kept as a detail of the entry',
  ignored: 'left out (--ignore-unknown)',
  'left out': 'left out (--column)',
  bookkeeping: "left out: the tool's own bookkeeping",
}

/** What each kind of column becomes, as the dry run says it. */
function destination(use: FieldUse, options: ImportOptions): string {
  if ('into' in use) return INTO[use.into] ?? use.into
  if ('part' in use)
    return `the name: its ${use.part === 'first_name' ? 'first (the greeting)' : 'last'} part`
  const { column } = use
  if (use.approval) return 'the status: declined → unsubscribed, else waiting'
  if (column.question) {
    const mapped = [...(options.maps.get(column.question.id) ?? new Map<string, string>())]
    const maps =
      mapped.length > 0 ? `; ${mapped.map(([word, choice]) => `${word} → ${choice}`).join(', ')}` : ''
    const how = column.question.kind === 'choice' ? ', a choice in any letter case' : ''
    return `the answer to "${column.question.label}" (${column.name}${how}${maps})`
  }
  return PLACES[column.name] ?? column.name
}

/** The dry run's account of the file's columns, one line each: where each goes. */
export function layoutLines(layout: FileLayout, options: ImportOptions): string[] {
  const width = Math.min(24, Math.max(...layout.uses.map((use) => use.header.length)))
  const lines = layout.uses.map((use) => `  ${use.header.padEnd(width)}  → ${destination(use, options)}`)
  return layout.found ? [...lines, `  (${layout.found})`] : lines
}
