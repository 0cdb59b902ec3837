import type { Writable } from 'node:stream'
import { escapeLiteral } from 'pg'
import { type CopyTransaction, isPgError, type Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { restoredStatusesSql, restoreImported } from '../entry-status'
import { ANSWER_COLUMNS, ENTRY_COLUMNS, type EntryColumn } from './entry-columns'
import { detailsSql, namesSql, peopleSql, STAGED_EXTRAS } from './import-people'

/**
 * `import`'s SQL. The file's checked rows are streamed by COPY into a temporary table inside the
 * import's one transaction; duplicates within the file are found there, and then a single
 * INSERT … SELECT adds them all, or nothing is added at all. The table goes with the transaction.
 */

const names = (columns: readonly Pick<EntryColumn, 'name'>[]) =>
  columns.map((column) => column.name).join(', ')

/** Every staged column: ENTRY_COLUMNS, then the name's first part and the details (import-people.ts). */
const STAGED = [...ENTRY_COLUMNS, ...STAGED_EXTRAS]

/** What import adds to public.waitlist; the rest is the entry's status (entry-status.ts writes it) and answers. */
const WAITLIST_NAMES = names(ENTRY_COLUMNS.filter((column) => column.table === 'waitlist'))

/**
 * A staged row's answers as private.entry_answers keeps them: one object, a key per question
 * answered ('{}' for none). The values were checked and trimmed as the lines came in.
 */
const STAGED_ANSWERS = `jsonb_strip_nulls(jsonb_build_object(${[...ANSWER_COLUMNS]
  .map(([column, question]) => `${escapeLiteral(question.id)}, staged.${column}`)
  .join(', ')}))`

/** A staged row's tags as private.entry_marks keeps them; staged space-separated, sorted, once each. */
const STAGED_TAGS = `coalesce(string_to_array(staged.tags, ' '), '{}')`
/** A staged row with a mark of the team's: tags or a note (unknown columns' included). */
const MARKED = 'staged.tags is not null or staged.note is not null'

/**
 * The staging table's COPY (text format): the file's line number, then every one of ENTRY_COLUMNS,
 * whichever the file has (import-row.ts fills in the others), then STAGED_EXTRAS. An empty field is NULL: only a status
 * date may be empty by then.
 */
export const stageRows = (tx: CopyTransaction): Writable =>
  tx.copyFrom(`copy pg_temp.import_rows (line, ${names(STAGED)}) from stdin with (null '')`)

/**
 * Marks the transaction as an import, which the signup trigger reads: the entries it adds carry
 * their own statuses, and moving a list is not news, so it queues no webhook and no confirmation.
 */
export async function markImport(tx: Queryable): Promise<void> {
  await tx.exec("set local waitlist.importing = 'on'")
}

/** Marks the transaction as an import and creates its staging table; gives the import's time. */
export async function createStage(tx: Queryable): Promise<string> {
  // Moving a list is not news: imported signups send no webhook and no confirmation.
  await markImport(tx)
  // citext's case-insensitive `=` (the duplicates' and the conflicts' rule) is in `extensions`.
  await tx.exec('set local search_path = public, extensions')
  // The duplicates' and the already-listed hash tables stay in memory for a million addresses, and
  // so does the staging table (set before its first use in the session, as temp_buffers must be).
  await tx.exec(`set local work_mem = '64MB'`)
  await tx.exec(`set local temp_buffers = '256MB'`)
  const columns = STAGED.map((column) => `${column.name} ${column.type}`).join(', ')
  await tx.exec(`create temp table import_rows (line integer not null, ${columns}) on commit drop`)
  // The time a plain list's addresses join the list: the import transaction's own, as the database has it.
  const [row] = await tx.query<{ now: string }>(`select ${isoUtc('now()')} as now`)
  return row?.now ?? new Date().toISOString()
}

export interface Duplicate {
  line: number
  /** The first line with the same address. */
  first: number
}

/**
 * Lines whose address an earlier line already has, in any letter case (citext's rule: lower()),
 * the first `limit` by line, and how many there are in all.
 */
export async function stagedDuplicates(
  tx: Queryable,
  limit: number,
): Promise<{ shown: Duplicate[]; count: number }> {
  const rows = await tx.query<Duplicate & { count: number }>(
    `with firsts as (
       select lower(email) as address, min(line) as first
         from pg_temp.import_rows group by 1 having count(*) > 1
     )
     select staged.line, firsts.first, (count(*) over ())::int as count
       from pg_temp.import_rows staged join firsts on lower(staged.email) = firsts.address
      where staged.line <> firsts.first
      order by staged.line
      limit $1`,
    [limit],
  )
  return { shown: rows.map(({ line, first }) => ({ line, first })), count: rows[0]?.count ?? 0 }
}

/**
 * How many staged addresses are already on the list (case-insensitively). A dry run may stage in a
 * database never migrated: without the table, none is.
 */
export async function stagedListed(tx: Queryable): Promise<number> {
  const [table] = await tx.query<{ name: string | null }>(
    "select to_regclass('public.waitlist')::text as name",
  )
  if (!table?.name) return 0
  const [row] = await tx.query<{ listed: number }>(
    `select count(*)::int as listed
       from pg_temp.import_rows staged join public.waitlist listed on listed.email = staged.email::citext`,
  )
  return row?.listed ?? 0
}

/** Whether the database keeps erased addresses' hashes yet (a dry run may read one never migrated). */
async function keepsSuppressed(tx: Queryable): Promise<boolean> {
  const [row] = await tx.query<{ name: string | null }>(
    "select to_regclass('private.suppressed')::text as name",
  )
  return Boolean(row?.name)
}

/**
 * Erased stays erased (ADR 098): the staged lines whose address `remove` or its person erased
 * (private.suppressed) are dropped from the import (`drop`), or only counted (a dry run). A hash per
 * line, computed only while some address is suppressed. Returns how many.
 */
export async function skipSuppressed(tx: Queryable, drop: boolean): Promise<number> {
  if (!(await keepsSuppressed(tx))) return 0
  const [any] = await tx.query<{ some: boolean }>('select exists (select from private.suppressed) as some')
  if (!any?.some) return 0
  const matches = `private.suppression_hash(staged.email) in (select hash from private.suppressed)`
  const [row] = await tx.query<{ n: number }>(
    drop
      ? `with gone as (delete from pg_temp.import_rows staged where ${matches} returning 1) select count(*)::int as n from gone`
      : `select count(*)::int as n from pg_temp.import_rows staged where ${matches}`,
  )
  return row?.n ?? 0
}

// From this many rows on, the trigram index takes the new addresses in one sorted batch after the
// insert (settleImport) rather than a 4 MB pending list at a time: a quarter of the load's time at a
// million. The planner's statistics are then refreshed, so the studio's searches are planned for
// the list as it now is.
const BULK_FROM = 10_000

/**
 * Adds the staged entries in file order, with their created_at, sources and consent records, then
 * their statuses (entry-status.ts restoreImported) and answers, in the import's transaction. When no staged address is on the list, a
 * plain insert: `on conflict` checks every row (about a sixth of the load at a million), and joining the inserted
 * rows back to the file by their RETURNING as much again. The rows that have a status or answers
 * then find their entry by its address, through the unique index, the statistics read again first
 * (they count this transaction's rows; planned for the list as it was, such a join could take hours).
 * A signup that takes one of the addresses meanwhile fails that insert alone, under a savepoint; the
 * import then skips the addresses listed (their statuses: entry-status.ts moveImported). Returns how many
 * were added.
 */
export async function addStaged(tx: Queryable, staged: number): Promise<number> {
  if (staged >= BULK_FROM) await tx.exec(`set local gin_pending_list_limit = '1GB'`)
  if ((await stagedListed(tx)) === 0) {
    await tx.exec('savepoint plain_insert')
    const added = await tx
      .run(
        `insert into public.waitlist (${WAITLIST_NAMES}) select ${WAITLIST_NAMES} from pg_temp.import_rows order by line`,
      )
      .then(
        ({ affected }) => affected,
        async (error: unknown) => {
          if (!isPgError(error) || error.code !== '23505') throw error
          await tx.exec('rollback to savepoint plain_insert')
          return undefined
        },
      )
    await tx.exec('release savepoint plain_insert')
    if (added !== undefined) {
      await tx.exec('analyze public.waitlist')
      const byAddress = `pg_temp.import_rows staged
        join public.waitlist added on added.email operator(extensions.=) staged.email::extensions.citext`
      await restoreImported(tx, byAddress)
      await tx.run(answersSql(byAddress))
      await tx.run(`with ${marksSql(byAddress)} ${MARKS_TOLD}`)
      await tx.run(peopleSql(byAddress))
      return added
    }
  }
  return addSkippingListed(tx)
}

/** The entries' answers, from `from` (a staged row and its entry, `added`). */
const answersSql = (from: string) => `
  insert into private.entry_answers (waitlist_id, answers)
  select added.id, ${STAGED_ANSWERS} from ${from} where ${STAGED_ANSWERS} <> '{}'::jsonb`

/**
 * The entries' tags and note (the team's own marks), from `from` (a staged row and its entry,
 * `added`), as `marked`; MARKS_TOLD then writes each in the entry's history, said to come from the import.
 */
const marksSql = (from: string) => `marked as (
  insert into private.entry_marks (waitlist_id, tags, note)
  select added.id, ${STAGED_TAGS}, staged.note from ${from} where ${MARKED}
  returning waitlist_id, tags, note
)`

const MARKS_TOLD = `
  insert into private.entry_events (waitlist_id, event, detail)
  select waitlist_id, 'tagged', left(array_to_string(tags, ' ') || ' (import)', 300) from marked where tags <> '{}'
  union all
  select waitlist_id, 'note written', '(import)' from marked where note is not null`

/** Some staged addresses are listed: they are skipped; the others added with their statuses and answers. */
async function addSkippingListed(tx: Queryable): Promise<number> {
  const byReturning = 'added join pg_temp.import_rows staged on staged.email = added.email'
  const [row] = await tx.query<{ added: number }>(
    `with added as (
       insert into public.waitlist (${WAITLIST_NAMES})
       select ${WAITLIST_NAMES} from pg_temp.import_rows order by line
       on conflict (email) do nothing
       returning id, email::text as email
     ),
     statuses as (${restoredStatusesSql(byReturning)}),
     answered as (${answersSql(byReturning)}),
     ${marksSql(byReturning)},
     told as (${MARKS_TOLD}),
     named as (${namesSql(byReturning)}),
     detailed as (${detailsSql(byReturning)})
     select count(*)::int as added from added`,
  )
  return row?.added ?? 0
}

/** A staged row and the entry listed before with its address, as `added` (import-people.ts's SQL). */
const LISTED_STAGED = `pg_temp.import_rows staged
  join public.waitlist added on added.email operator(extensions.=) staged.email::extensions.citext`

/**
 * For entries listed before the import: what they lack, the file gives; what they have, they
 * keep. An entry without answers takes the file's, one without a source takes the file's source,
 * one without a note the file's note, one without a name or details the file's; the file's tags
 * are added to its own. Answers, a source, a note, a name or details of their own (newer than a
 * backup, most likely) are never overwritten. Returns how many listed entries took any of them.
 */
export async function fillListed(tx: Queryable): Promise<number> {
  const [row] = await tx.query<{ filled: number }>(
    `with listed as (
       select waitlist.id, waitlist.source, staged.source as staged_source, ${STAGED_ANSWERS} as answers,
              ${STAGED_TAGS} as tags, staged.note, ${MARKED} as marked
         from pg_temp.import_rows staged
         join public.waitlist on waitlist.email operator(extensions.=) staged.email::extensions.citext
     ),
     answered as (
       insert into private.entry_answers (waitlist_id, answers)
       select id, answers from listed where answers <> '{}'::jsonb
       on conflict (waitlist_id) do nothing
       returning waitlist_id as id
     ),
     sourced as (
       update public.waitlist set source = listed.staged_source from listed
        where waitlist.id = listed.id and listed.source is null and listed.staged_source is not null
       returning waitlist.id
     ),
     marked as (
       insert into private.entry_marks as m (waitlist_id, tags, note)
       select id, tags, note from listed where marked
       on conflict (waitlist_id) do update
         set tags = array(select distinct unnest(m.tags || excluded.tags) order by 1),
             note = coalesce(m.note, excluded.note), updated_at = now()
         where not (m.tags @> excluded.tags) or (m.note is null and excluded.note is not null)
       returning waitlist_id, tags, note
     ),
     told as (
       insert into private.entry_events (waitlist_id, event, detail)
       select waitlist_id, 'marked', '(import)' from marked
     ),
     named as (${namesSql(LISTED_STAGED, true)} returning waitlist_id),
     detailed as (${detailsSql(LISTED_STAGED, true)} returning waitlist_id)
     select count(distinct id)::int as filled
       from (select id from answered union all select id from sourced union all select waitlist_id from marked
             union all select waitlist_id from named union all select waitlist_id from detailed) as took`,
  )
  return row?.filled ?? 0
}

/**
 * After a large import has committed (not before: the per-day counts it changed stay locked until
 * then, and a signup sharing their shard would wait), merges the trigram index's pending list and
 * refreshes the statistics.
 */
export async function settleImport(db: Queryable, added: number): Promise<void> {
  if (added < BULK_FROM) return
  await db.query(`select gin_clean_pending_list('public.waitlist_email_search_trgm'::regclass)`)
  await db.exec('analyze public.waitlist')
}
