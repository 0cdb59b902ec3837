import type { SignupQuestion } from '../../contract/signup-questions'
import { signupQuestions } from '../../contract/site-config'
import { readNote } from '../../server/admin/entries'
import { ENTRY_COLUMNS, type EntryColumn } from '../../server/admin/import'

/**
 * How `import` reads a file's columns, an export's or the lab's own sheet as it is: the export's
 * names, a question's column by its bare id (`role` as `answer_role`), a choice in any letter case
 * or through the owner's `--map role:Engineer=Engineering`, and every column it does not know
 * (`name`, `notes`, `company`) into the entry's note as `name: Ada Lovelace; notes: met at NeurIPS`,
 * unless `--ignore-unknown`. Each line's every problem is named with the value refused.
 */

/** The lab's own words for a question's choices: question id → the word in lower case → the choice. */
export type ChoiceMaps = ReadonlyMap<string, ReadonlyMap<string, string>>

export interface ImportOptions {
  maps: ChoiceMaps
  /** Columns import does not know are left out, rather than written into the note. */
  ignoreUnknown: boolean
}

export const PLAIN_IMPORT: ImportOptions = { maps: new Map(), ignoreUnknown: false }

/** What one column of the file is read as. */
export type FieldUse = { header: string; column: EntryColumn } | { header: string; into: 'note' | 'ignored' }

export type FileLayout = readonly FieldUse[]

const fold = (text: string) => text.trim().toLowerCase()

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

/** The column a header names: the export's own name in any letter case, or a question's bare id. */
function columnNamed(header: string): EntryColumn | undefined {
  const name = fold(header)
  return ENTRY_COLUMNS.find((column) => column.name === name || column.question?.id === name)
}

/**
 * The header read into a layout: every known column once, `email` among them; the others into the
 * note (or ignored). Else what is wrong with it.
 */
export function readLayout(
  header: readonly string[],
  options: ImportOptions,
): FileLayout | { problem: string } {
  const layout: FieldUse[] = []
  for (const given of header) {
    const column = columnNamed(given)
    if (!column) {
      layout.push({
        header: given.trim() || `column ${layout.length + 1}`,
        into: options.ignoreUnknown ? 'ignored' : 'note',
      })
      continue
    }
    const twice = layout.find((use) => 'column' in use && use.column === column)
    if (twice)
      return {
        problem: `${JSON.stringify(twice.header)} and ${JSON.stringify(given)} both name ${column.name}`,
      }
    layout.push({ header: given.trim(), column })
  }
  const named = new Set(layout.flatMap((use) => ('column' in use ? [use.column] : [])))
  const required = ENTRY_COLUMNS.filter((column) => !column.whenMissing && !named.has(column))
  if (required.length > 0)
    return { problem: `it has no ${required.map((column) => column.name).join(', ')} column` }
  return layout
}

/** A choice as the question names it: the owner's --map first, then the choice in any letter case. */
function choiceOf(question: SignupQuestion, value: string, maps: ChoiceMaps): string {
  if (question.kind !== 'choice') return value
  const word = fold(value)
  const mapped = maps.get(question.id)?.get(word)
  if (mapped) return mapped
  return question.choices.find((choice) => fold(choice) === word) ?? value
}

/** A cell's value as its column checks and stages it. */
function cellValue(column: EntryColumn, raw: string, options: ImportOptions): string {
  return column.question ? choiceOf(column.question, raw, options.maps) : raw
}

/** The note a line gives: its note column, then each other column's `name: value`, `; ` between. */
function noteOf(fields: readonly string[], layout: FileLayout): { note: string; from: string[] } {
  const parts: string[] = []
  const from: string[] = []
  for (const [index, use] of layout.entries()) {
    const value = (fields[index] ?? '').trim()
    if (value === '') continue
    if ('column' in use && use.column.name === 'note') parts.unshift(value)
    else if ('into' in use && use.into === 'note') parts.push(`${use.header}: ${value}`)
    else continue
    from.push(use.header)
  }
  return { note: parts.join('; '), from }
}

const quoted = (value: string) => `${JSON.stringify(value.slice(0, 60))}${value.length > 60 ? '…' : ''}`

/** Every problem of a record of a file with this layout, each with the value refused; none when it is good. */
export function recordProblems(
  fields: readonly string[],
  layout: FileLayout,
  options: ImportOptions,
): string[] {
  if (fields.length !== layout.length)
    return [
      `expected ${layout.length} fields (${layout.map((use) => use.header).join(',')}), found ${fields.length}`,
    ]
  const problems: string[] = []
  for (const [index, use] of layout.entries()) {
    if (!('column' in use) || use.column.name === 'note') continue
    const raw = fields[index] ?? ''
    const problem = use.column.problem(cellValue(use.column, raw, options))
    if (!problem) continue
    const map =
      use.column.question?.kind === 'choice'
        ? ` (--map ${use.column.question.id}:${raw.trim()}=CHOICE maps it)`
        : ''
    problems.push(`${use.header} ${quoted(raw)}: ${problem}${map}`)
  }
  if (!placesOf(layout).noted) return problems
  const { note, from } = noteOf(fields, layout)
  const read = readNote(note)
  if ('problem' in read) problems.push(`the note from ${from.join(', ')} ${quoted(note)}: ${read.problem}`)
  return problems
}

/**
 * A good record as import stages it: every one of ENTRY_COLUMNS, in their order, each empty or
 * absent one as its `whenMissing` says, the note made of the note column and the unknown ones.
 */
export function stagedRecord(
  fields: readonly string[],
  layout: FileLayout,
  options: ImportOptions,
  importTime: string,
): string[] {
  const { at: places, noted } = placesOf(layout)
  return ENTRY_COLUMNS.map((column, at) => {
    const index = places[at] ?? -1
    const raw =
      column.name === 'note'
        ? noted
          ? noteOf(fields, layout).note
          : ''
        : index < 0
          ? ''
          : (fields[index] ?? '')
    const value = raw === '' ? '' : (column.stage ?? String)(cellValue(column, raw, options))
    return value === '' && column.whenMissing ? column.whenMissing(importTime) : value
  })
}

/** Where each of ENTRY_COLUMNS sits in a file's records (-1: absent), and whether any column makes a note. */
interface Places {
  at: number[]
  noted: boolean
}

// Found once per file, not per line: a million lines read the same layout.
const places = new WeakMap<FileLayout, Places>()

function placesOf(layout: FileLayout): Places {
  let found = places.get(layout)
  if (!found) {
    found = {
      at: ENTRY_COLUMNS.map((column) => layout.findIndex((use) => 'column' in use && use.column === column)),
      noted: layout.some((use) => ('into' in use ? use.into === 'note' : use.column.name === 'note')),
    }
    places.set(layout, found)
  }
  return found
}

/** What each kind of column becomes, as the dry run says it. */
function destination(use: FieldUse, options: ImportOptions): string {
  if ('into' in use)
    return use.into === 'note' ? `the note, as "${use.header}: …"` : 'ignored (--ignore-unknown)'
  const { column } = use
  if (column.question) {
    const mapped = [...(options.maps.get(column.question.id) ?? new Map<string, string>())]
    const maps =
      mapped.length > 0 ? `; ${mapped.map(([word, choice]) => `${word} → ${choice}`).join(', ')}` : ''
    const how = column.question.kind === 'choice' ? ', a choice in any letter case' : ''
    return `the answer to "${column.question.label}" (${column.name}${how}${maps})`
  }
  const words: Record<string, string> = {
    email: 'the address',
    created_at: 'when they signed up (a date is midnight UTC; a time without a zone is UTC)',
    status: 'the status',
    source: 'the source',
    tags: 'the tags (space-separated)',
    note: 'the note',
    consent_at: 'the consent record: when',
    consent_door: 'the consent record: the door (none: import, now, naming the file)',
    consent_words: "the consent record: the words' version",
    consent_agent: 'the consent record: the agent, as it declared itself',
    confirmed_from: 'the consent record: the network the confirmation came from',
  }
  return words[column.name] ?? column.name
}

/** The dry run's account of the file's columns, one line each: where each goes. */
export function layoutLines(layout: FileLayout, options: ImportOptions): string[] {
  const width = Math.min(24, Math.max(...layout.map((use) => use.header.length)))
  return layout.map((use) => `  ${use.header.padEnd(width)}  → ${destination(use, options)}`)
}
