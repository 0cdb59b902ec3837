import { escapeLiteral } from 'pg'
import { ENTRY_STATUSES } from '../../../contract/entry-statuses'
import { signupQuestions } from '../../../contract/site-config'
import { isoUtc } from '../../db/iso-utc'
import { LATEST_BATCH } from './entry-filter'

/**
 * The orders the studio's list can take: any of its columns, either way. Every order is a keyset,
 * as the newest-first one is (ADR 033): a page starts after the (key, id) of the last entry shown.
 * Signed up is the table's own column, walked on its index. Every other key is text, compared
 * byte by byte (`collate "C"`, so the same in every database and in the studio's own sort of a
 * search's matches), and an entry without a value (no organisation, no tag, never invited) sorts
 * last both ways: its key is the highest text going up and the empty text going down.
 */
export type SortColumn =
  | 'created_at'
  | 'email'
  | 'name'
  | 'status'
  | 'source'
  | 'agent'
  | `answer_${string}`
  | 'tags'
  | 'batch'
  | 'joined_at'

export interface EntrySort {
  column: SortColumn
  descending: boolean
}

/** The list's own order: newest first. */
export const NEWEST_FIRST: EntrySort = { column: 'created_at', descending: true }

/** The CLI's own order (`list`, `export`, `invite --next N`): oldest first. */
export const OLDEST_FIRST: EntrySort = { column: 'created_at', descending: false }

export const isOldestFirst = (sort: EntrySort) => sort.column === 'created_at' && !sort.descending

/** The name's sort key: lower case, as the index entry_names_sort holds it; null for none. */
export const NAME_KEY = '(select lower(n.name) from private.entry_names n where n.waitlist_id = waitlist.id)'

const STATUS_ORDER = `array[${ENTRY_STATUSES.map((status) => escapeLiteral(status)).join(', ')}]`

/** Each column's key over ENTRY_SOURCE, as text; null where the entry has no value. */
const TEXT_KEYS: Readonly<Record<string, string>> = {
  email: 'lower(waitlist.email::text)',
  // The person's name, beside the entry (private.entry_names): its row found by its key.
  name: NAME_KEY,
  // The statuses' own order (contract/entry-statuses.ts), not the alphabet's.
  status: `lpad(array_position(${STATUS_ORDER}, coalesce(entry_status.status, 'waiting'))::text, 2, '0')`,
  source: 'lower(waitlist.source)',
  // Who the Agent column names (contract/agent-words.ts agentWho): a verified agent's display name,
  // else the declared name, else the agent a signature named.
  agent: `lower(coalesce(case when waitlist.consent_agent @> '{"verified": true}'::jsonb
    then waitlist.consent_agent ->> 'signature_agent_name' end,
    waitlist.consent_agent ->> 'name', waitlist.consent_agent ->> 'signature_agent'))`,
  tags: `nullif(array_to_string(entry_marks.tags, ' '), '')`,
  batch: `lpad((${LATEST_BATCH('waitlist')})::text, 19, '0')`,
  joined_at: isoUtc('entry_status.joined_at'),
  ...Object.fromEntries(
    signupQuestions.map(({ id }) => [
      `answer_${id}`,
      `lower(entry_answers.answers ->> ${escapeLiteral(id)})`,
    ]),
  ),
}

export const SORT_COLUMNS: readonly SortColumn[] = ['created_at', ...(Object.keys(TEXT_KEYS) as SortColumn[])]

/** The highest code point: above any text, so an entry without a value comes last going up. */
export const LAST_TEXT = '\u{10FFFF}'

/** The key the list is ordered and paged by, and the SQL type its cursor's value is read as. */
export function sortKey(sort: EntrySort): { sql: string; type: 'timestamptz' | 'text' } {
  if (sort.column === 'created_at') return { sql: 'waitlist.created_at', type: 'timestamptz' }
  const key = TEXT_KEYS[sort.column]
  if (key === undefined) throw new Error(`no sort key for ${sort.column}`)
  const missing = sort.descending ? "''" : `chr(${LAST_TEXT.codePointAt(0)})`
  return { sql: `(coalesce(${key}, ${missing}) collate "C")`, type: 'text' }
}

/** The ORDER BY of a query over ENTRY_SOURCE in the sort's order, ties broken by id the same way round. */
export function orderOf(sort: EntrySort): string {
  const way = sort.descending ? 'desc' : 'asc'
  return `${sortKey(sort).sql} ${way}, waitlist.id ${way}`
}

/** The key as the page's rows carry it, for their cursors: signed up as UTC text with microseconds. */
export const sortKeyText = (sort: EntrySort) =>
  sort.column === 'created_at' ? isoUtc('waitlist.created_at') : sortKey(sort).sql

/** The sort the studio's query asks for (`sort=answer_organisation&order=asc`), or what is wrong with it. */
export function readSort(
  column: string | undefined,
  order: string | undefined,
): { sort: EntrySort } | { problem: string } {
  if (column === undefined && order === undefined) return { sort: NEWEST_FIRST }
  const name = column ?? 'created_at'
  if (!(SORT_COLUMNS as readonly string[]).includes(name))
    return { problem: `sort needs one of ${SORT_COLUMNS.join(', ')}` }
  if (order !== undefined && order !== 'asc' && order !== 'desc')
    return { problem: 'order needs asc or desc' }
  return { sort: { column: name as SortColumn, descending: order === 'desc' } }
}

/** A column as the CLI's `--sort` names it: a question by its id (`organisation`), the others as the studio's query does. */
const flagName = (column: SortColumn) => column.replace(/^answer_/, '')

/**
 * `--sort COLUMN[:desc]` (`list`, `invite --next N`): the order the studio's table can show, named
 * as the CLI names it (`--sort organisation`, `--sort created_at:desc`), A to Z or oldest first
 * unless `:desc`; or what is wrong with it.
 */
export function readSortFlag(given: string): { sort: EntrySort } | { problem: string } {
  const [name = '', way, ...rest] = given.split(':')
  const column = SORT_COLUMNS.find((each) => flagName(each) === name || each === name)
  if (column === undefined || rest.length > 0 || (way !== undefined && way !== 'asc' && way !== 'desc'))
    return {
      problem: `--sort needs one of ${SORT_COLUMNS.map(flagName).join(', ')}, with :desc for the other way (--sort organisation:desc), not "${given}"`,
    }
  return { sort: { column, descending: way === 'desc' } }
}

/** The sort as `--sort` takes it: `organisation`, `created_at:desc`. */
export const sortFlag = (sort: EntrySort) => `${flagName(sort.column)}${sort.descending ? ':desc' : ''}`

/** A page's key: the entry's value in the sort's column (see sortKey), and its id. */
export interface Key {
  value: string
  id: string
}

/** Text in the database's "C" order: UTF-8 bytes, which is the code points' order. */
const inBytes = (a: string, b: string) => (a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b)))

/** The sort's order of two keys: negative when `a` comes first; ties broken by id, the same way round. */
export function compareKeys(sort: EntrySort, a: Key, b: Key): number {
  const byValue = inBytes(a.value, b.value)
  const [x, y] = [BigInt(a.id), BigInt(b.id)]
  const order = byValue !== 0 ? byValue : x === y ? 0 : x < y ? -1 : 1
  return sort.descending ? -order : order
}
