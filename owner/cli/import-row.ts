import { plainLine } from '../../contract/clean-text'
import { ENTRY_COLUMNS, type EntryColumn } from '../../server/admin/import'
import { type DateReading, readDate } from './import-dates'
import { choiceOf, type FieldUse, type FileLayout, type ImportOptions } from './import-layout'

/**
 * One row of a file as import stores it (ADR 116): every cell trimmed; dates in the file's order
 * and zone (import-dates.ts); a choice through `--map`; tags split at commas and spaces with their
 * quotes removed (Mailchimp writes `"early","conference"`); the name whole, or a first and a last
 * name joined (the first kept for the greeting); a date of unsubscribing or bouncing (Mailchimp's
 * UNSUB_TIME, CLEAN_TIME) or Luma's declined as the status, so nobody who left is mailed again; the
 * unplaced columns as the entry's details. A row without a usable address is skipped, not refused.
 */

/** What a row gives: the values staged (ENTRY_COLUMNS', then STAGED_EXTRAS'), or why not. */
export type RowReading =
  | { staged: string[]; problems: [] }
  | { problems: string[]; skipped?: undefined }
  | { skipped: string; problems: [] }

/** The staged values after ENTRY_COLUMNS': the first name, and the details as a JSON object ('' for none). */
export const STAGED_EXTRAS = ['given_name', 'details'] as const

// private.entry_details holds at most 8 KB of JSON text (PostgreSQL prints ", " and ": ").
const MAX_DETAILS = 8192
const MAX_GIVEN_NAME = 100

/** Where each part of a row sits in a file's records (-1: absent). Found once per file, not per line. */
interface Places {
  at: number[]
  first: number
  last: number
  details: number[]
  width: number
  /** Whether a column says the status (an export's, or Luma's approval). */
  status: boolean
}

const places = new WeakMap<FileLayout, Places>()

function placesOf(layout: FileLayout): Places {
  let found = places.get(layout)
  if (found) return found
  const index = (test: (use: FieldUse) => boolean) => layout.uses.findIndex(test)
  found = {
    at: ENTRY_COLUMNS.map((column) => index((use) => 'column' in use && use.column === column)),
    first: index((use) => 'part' in use && use.part === 'first_name'),
    last: index((use) => 'part' in use && use.part === 'last_name'),
    details: layout.uses.flatMap((use, at) => ('into' in use && use.into === 'details' ? [at] : [])),
    width: layout.uses.length,
    status: layout.uses.some((use) => 'column' in use && use.column.name === 'status' && !use.approval),
  }
  places.set(layout, found)
  return found
}

const headersOf = (layout: FileLayout) => layout.uses.map((use) => use.header).join(',')

const quoted = (value: string) => `${JSON.stringify(value.slice(0, 60))}${value.length > 60 ? '…' : ''}`

/** Tags as Mailchimp, Airtable or a sheet write them, space-separated for the tags column. */
const tagWords = (value: string) =>
  value
    .replace(/["']/g, ' ')
    .split(/[\s,;]+/)
    .filter(Boolean)
    .join(' ')

/** A detail's value as kept: line breaks as LF, what is not text removed but tabs and line breaks. */
const detailText = (value: string) =>
  value.replace(/\r\n?/g, '\n').replace(/[\p{Cf}\p{Cs}]|(?![\t\n])\p{Cc}/gu, '')

/** What one file's rows are read with: its layout, the owner's options, the import's time, its dates. */
export interface RowContext {
  layout: FileLayout
  options: ImportOptions
  importTime: string
  dates: DateReading
}

/** A cell as its column reads it, before the column's own check: a date, a choice, tags, a status. */
function cellValue(
  column: EntryColumn,
  raw: string,
  context: RowContext,
  approval: boolean,
): { value: string; final?: true } | { problem: string } {
  if (raw === '') return { value: raw }
  if (column.type.startsWith('timestamptz')) {
    // Read once, into the form the column stages: its own check and staging would read it again.
    const read = readDate(raw, context.dates)
    return 'time' in read ? { value: read.time, final: true } : read
  }
  if (approval) return { value: raw.toLowerCase() === 'declined' ? 'unsubscribed' : '' }
  if (column.name === 'tags') return { value: tagWords(raw) }
  return { value: column.question ? choiceOf(column.question, raw, context.options.maps) : raw }
}

const NAME = ENTRY_COLUMNS.findIndex((column) => column.name === 'name')
const STATUS = ENTRY_COLUMNS.findIndex((column) => column.name === 'status')
const EMAIL = ENTRY_COLUMNS.findIndex((column) => column.name === 'email')
const LEFT = ['unsubscribed_at', 'bounced_at'].map((name) => ENTRY_COLUMNS.findIndex((c) => c.name === name))

/** The row's name and first name: its name column, else its first and last names joined. */
function nameOf(fields: readonly string[], at: Places, named: string): { name: string; given: string } {
  if (at.first < 0 && at.last < 0) return { name: named, given: '' }
  const first = plainLine(fields[at.first] ?? '').trim()
  const last = plainLine(fields[at.last] ?? '').trim()
  const name = named || [first, last].filter(Boolean).join(' ')
  return { name, given: first.slice(0, MAX_GIVEN_NAME).trim() }
}

/** The unplaced columns as one JSON object, header → value, the empty ones left out. */
function detailsOf(fields: readonly string[], layout: FileLayout, at: Places): string {
  const details: Record<string, string> = {}
  let any = false
  for (const index of at.details) {
    const value = detailText(fields[index] ?? '')
    if (value === '') continue
    details[layout.uses[index]?.header ?? `column ${index + 1}`] = value
    any = true
  }
  return any ? JSON.stringify(details) : ''
}

/** Every value of a row as staged, or every problem with it; a row without a usable address is skipped. */
export function readRow(given: readonly string[], context: RowContext): RowReading {
  const at = placesOf(context.layout)
  // A spreadsheet may end a row with empty cells to spare; a row short of cells lost some.
  if (given.length < at.width || given.slice(at.width).some((cell) => cell.trim() !== ''))
    return { problems: [`expected ${at.width} fields (${headersOf(context.layout)}), found ${given.length}`] }
  const fields = given.map((cell) => cell.trim())
  const emailAt = at.at[EMAIL] ?? -1
  const email = fields[emailAt] ?? ''
  const wrong = email === '' ? 'no address' : ENTRY_COLUMNS[EMAIL]?.problem(email)
  if (wrong)
    return {
      skipped: `${email === '' ? wrong : `${context.layout.uses[emailAt]?.header} ${quoted(email)}: ${wrong}`}; skipped`,
      problems: [],
    }
  const problems: string[] = []
  const staged = ENTRY_COLUMNS.map((column, index) => {
    const place = at.at[index] ?? -1
    const raw = place < 0 ? '' : (fields[place] ?? '')
    const use = context.layout.uses[place]
    const read = cellValue(column, raw, context, use !== undefined && 'approval' in use)
    if ('final' in read) return read.value
    const value = 'value' in read ? read.value : raw
    const problem = 'problem' in read ? read.problem : value === '' ? undefined : column.problem(value)
    if (problem) {
      const map =
        column.question?.kind === 'choice' ? ` (--map ${column.question.id}:${raw}=CHOICE maps it)` : ''
      problems.push(`${use?.header ?? column.name} ${quoted(raw)}: ${problem}${map}`)
      return ''
    }
    const kept = value === '' ? '' : (column.stage ?? String)(value)
    return kept === '' && column.whenMissing ? column.whenMissing(context.importTime) : kept
  })
  const { name, given: givenName } = nameOf(fields, at, staged[NAME] ?? '')
  if (name.length > 200) problems.push(`the name ${quoted(name)}: over 200 characters`)
  staged[NAME] = name.length > 200 ? '' : name
  // No status of its own: a date of leaving says it (Mailchimp's unsubscribed and cleaned exports).
  if (!at.status) {
    const left = LEFT.findIndex((index) => staged[index] !== '')
    if (left >= 0) staged[STATUS] = left === 0 ? 'unsubscribed' : 'bounced'
  }
  const details = detailsOf(fields, context.layout, at)
  if (Buffer.byteLength(details) + 2 * at.details.length > MAX_DETAILS)
    problems.push(`its other columns hold over 8 KB; --column "HEADER=-" leaves one out`)
  if (problems.length > 0) return { problems }
  return { staged: [...staged, name ? givenName : '', details], problems: [] }
}

/**
 * A staged row as it will be stored, for the dry run: the address and name first, times in UTC,
 * the answers and tags as `show --json` has them, the consent record left out; empty fields too.
 */
export function storedView(staged: readonly string[]): Record<string, unknown> {
  const named = new Map(
    [...ENTRY_COLUMNS.map((column) => column.name), ...STAGED_EXTRAS].map((name, index) => [
      name,
      staged[index] ?? '',
    ]),
  )
  const view: Record<string, unknown> = { email: named.get('email'), name: named.get('name') }
  const answers: Record<string, string> = {}
  for (const [name, value] of named) {
    if (value === '' || name in view || name.startsWith('consent_') || name === 'confirmed_from') continue
    if (name.startsWith('answer_')) answers[name.slice('answer_'.length)] = value
    else if (name === 'tags') view.tags = value.split(' ')
    else if (name === 'details') view.details = JSON.parse(value)
    else if (name.endsWith('_at')) view[name] = new Date(value).toISOString()
    else view[name] = value
  }
  if (!view.name) delete view.name
  if (Object.keys(answers).length > 0) view.answers = answers
  return view
}
