import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeLiteral } from 'pg'
import { escapeUnprinted, escapeUnprintedJson } from '../../contract/clean-text'
import { signupQuestions } from '../../contract/site-config'
import {
  CopyTextRows,
  columnsNamed,
  copyEntries,
  countEntries,
  type EntryFilter,
  type EntrySort,
  isOldestFirst,
  isoUtc,
  namesTeamSets,
  OLDEST_FIRST,
} from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'
import { withDatabase } from './with-database'

/**
 * `count [FILTER]`: how many entries the filter matches (all of them without one), as plain digits
 * (a number given to console.log is coloured under FORCE_COLOR, which a script would read).
 */
export async function countCommand(filter: EntryFilter): Promise<number> {
  console.log(String(await withDatabase((db) => countEntries(db, filter))))
  return 0
}

/** What `list` prints of an entry, in its order. */
const LIST_COLUMNS = columnsNamed('created_at', 'email', 'status')

/**
 * `list --json`: an entry as `show --json` gives it, without its history, one JSON object a line
 * (JSON Lines), built by the database as the rows stream out: the answers in the order the lab asks
 * its questions, the tags as an array, no name or note as null.
 */
const JSON_LINE = {
  read: `json_build_object(
    'email', waitlist.email::text,
    'name', (select n.name from private.entry_names n where n.waitlist_id = waitlist.id),
    'status', coalesce(entry_status.status, 'waiting'),
    'source', waitlist.source,
    'answers', json_strip_nulls(json_build_object(${signupQuestions
      .map(({ id }) => `${escapeLiteral(id)}, entry_answers.answers ->> ${escapeLiteral(id)}`)
      .join(', ')})),
    'tags', to_json(coalesce(entry_marks.tags, '{}')),
    'note', entry_marks.note,
    'created_at', ${isoUtc('waitlist.created_at')})::text`,
}

/**
 * The lines `list` writes to `out` (left open): one per entry the filter matches, oldest first or
 * in `sort`'s order (`--sort organisation`, as the studio's table shows them); created_at (UTC), the address and its status, two spaces apart, or with `json` the entry as one
 * JSON object. Streamed from COPY, as `export` is: a million lines in a chunk's memory. Nothing in a
 * line drives the terminal (ADR 082): what is not text is written as its escape. Resolves to the
 * number of lines.
 */
export function listEntries(
  db: Database,
  filter: EntryFilter,
  out: Writable,
  json = false,
  sort: EntrySort = OLDEST_FIRST,
): Promise<number> {
  const lines = json
    ? new CopyTextRows(([object]) => `${escapeUnprintedJson(object ?? '')}\n`)
    : new CopyTextRows((fields) => `${escapeUnprinted(fields.join('  '))}\n`)
  return db.copyTransaction(async (tx) => {
    // The planner takes `id = any(array(…))` for ten rows, and gathers the matches to sort them: the
    // first line waits for the last (`--tag shortlist`, 50,000 of a million: 0.3-0.4 s, under load).
    // Walking the created_at index checks the ids on the index itself and streams in order: the
    // first line in 20-40 ms, the whole 1.1-1.6 times later. A tag or a batch is read from its first
    // line; an answer filter keeps the sort, whose whole is sooner (issue 43's figure).
    // Another order has no index to walk: it sorts, as the studio's page does.
    if (namesTeamSets(filter) && isOldestFirst(sort)) await tx.exec('set local enable_sort = off')
    const columns = json ? [JSON_LINE] : LIST_COLUMNS
    await pipeline(copyEntries(tx, filter, columns, sort), lines, out, { end: false })
    return lines.rows
  })
}

/** `list [FILTER] [--sort COLUMN[:desc]] [--json]`: listEntries to standard output, which is Node's to close, not ours. */
export async function listCommand(filter: EntryFilter, json = false, sort?: EntrySort): Promise<number> {
  await withDatabase((db) => listEntries(db, filter, process.stdout, json, sort))
  return 0
}
