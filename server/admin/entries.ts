/**
 * The entries as the owner reads and marks them (ADR 113): a filter and a sort read from the
 * owner's words, a count, a page, a list, an export, one entry's history and consent record, the
 * team's tags and notes, and a removal. The CLI's list, count, show, export, tag, note and remove,
 * and the studio's table, panel and marks, call these; the queries stay in server/waitlist/admin.
 */
export { CopyTextRows } from '../db/copy-text'
export { isoUtc } from '../db/iso-utc'
export { columnsNamed, copyEntries } from '../waitlist/admin/entry-columns'
export { entryDetails } from '../waitlist/admin/entry-details'
export {
  type EntryFilter,
  filterWords,
  isEmptyFilter,
  namesTeamSets,
  readFilter,
} from '../waitlist/admin/entry-filter'
export { type EntryHistory, entryHistory, type HistoryItem } from '../waitlist/admin/entry-history'
export {
  MAX_TAGS,
  type MarkOutcome,
  readNote,
  readTag,
  setNote,
  tagEntries,
  tagsPresent,
  untagEntries,
} from '../waitlist/admin/entry-marks'
export { BadCursorError, type EntryPage, type PageEntry, pageEntries } from '../waitlist/admin/entry-pages'
export {
  type EntrySort,
  isOldestFirst,
  OLDEST_FIRST,
  readSort,
  readSortFlag,
  type SortColumn,
  sortFlag,
} from '../waitlist/admin/entry-sort'
export { exportCsv } from '../waitlist/admin/export-csv'
export { countByStatus, type StatusCounts } from '../waitlist/admin/status-counts'
export { presentSources } from '../waitlist/admin/studio-queries'
export { countEntries, removeEntry } from '../waitlist/admin/waitlist-admin'
export type { ConsentRecord } from '../waitlist/consent/consent-record'
export { eraseEntry } from '../waitlist/erasure'
