/**
 * `import`'s door (ADR 113): the columns a file may carry, the staging table and its checks, the
 * consent words an imported record cites, and the statuses the file gives to entries already
 * listed (entry-status.ts, which writes every status, the restored ones included).
 */
export { copyTextLine } from '../db/copy-text'
export { columnIndex, ENTRY_COLUMNS, type EntryColumn, readTime } from '../waitlist/admin/entry-columns'
export {
  addStaged,
  createStage,
  fillListed,
  settleImport,
  skipSuppressed,
  stagedDuplicates,
  stagedListed,
  stageRows,
} from '../waitlist/admin/import-staging'
export { registerWords } from '../waitlist/consent/consent-record'
export { importText, wordsVersion } from '../waitlist/consent/door-words'
export { moveImported } from '../waitlist/entry-status'
