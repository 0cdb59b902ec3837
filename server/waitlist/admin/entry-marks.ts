import { cleanText } from '../../../contract/clean-text'
import { type Actor, recordAudit } from '../../audit/audit-record'
import type { Database, Queryable } from '../../db/database'
import { foldKept, keptRows, TAG_ENTRIES } from './kept-counts'

/**
 * The team's own marks on entries: tags (`shortlist`, `ask-again`) and one note each, kept in
 * private.entry_marks (20261203000000_entry_marks.sql). They belong to the lab, never to the person:
 * no mail, webhook or page the person sees reads this table, and the entry's erasure takes its row.
 * The CLI (`tag`, `untag`, `note`) and the studio ("Tag selected", the panel's note) both call these
 * functions; each change is a line of the entry's history (private.entry_events), saying which door.
 */

/** A tag: a word of lower-case letters, digits, `-` and `_`, starting with a letter or digit. */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/
export const MAX_TAG = 32
export const MAX_NOTE = 1000
/** An entry carries at most this many tags (the table's check). */
export const MAX_TAGS = 50

/** The door a change came through, as the entry's history says it. */
export type MarkedVia = 'cli' | 'studio' | 'import'

/** Who marked, and through which door: the door for the history, the person for the record (ADR 099). */
export interface MarkedBy {
  via: MarkedVia
  actor: Actor
}

/** The tag as stored (folded to lower case), or what is wrong with it in the owner's words. */
export function readTag(given: string): { tag: string } | { problem: string } {
  const tag = given.trim().toLowerCase()
  if (TAG_PATTERN.test(tag)) return { tag }
  return {
    problem:
      `a tag is one word of up to ${MAX_TAG} characters (a-z, 0-9, - and _, e.g. shortlist), ` +
      `not ${JSON.stringify(given.slice(0, 40))}`,
  }
}

/** The note as stored (line breaks as LF, trimmed; '' clears it), or what is wrong with it. */
export function readNote(given: string): { note: string } | { problem: string } {
  const cleaned = cleanText('the note', given)
  if ('problem' in cleaned) return cleaned
  const note = cleaned.text.trim()
  const length = [...note].length
  if (length > MAX_NOTE)
    return {
      problem: `a note is at most ${MAX_NOTE.toLocaleString('en')} characters; this one has ${length.toLocaleString('en')}`,
    }
  return { note }
}

/**
 * What a tag or untag did: the addresses changed, those that already were so, those not listed, and
 * those refused a new tag because they carry MAX_TAGS already (one full entry leaves the rest tagged).
 */
export interface MarkOutcome {
  changed: string[]
  unchanged: string[]
  unknown: string[]
  full: string[]
}

/** What the statements below say of each entry listed. */
type RowOutcome = 'changed' | 'unchanged' | 'full'

/** The entries of these addresses (any letter case), as `entries` (id, email) for the statements below. */
const ENTRIES = `entries as (
  select w.id, w.email::text as email from public.waitlist w
   where w.email operator(extensions.=) any($1::text[]::extensions.citext[])
)`

/** The entry rows left with neither tag nor note carry nothing: taken away. */
const TIDY = `delete from private.entry_marks where waitlist_id = any($1::bigint[]) and tags = '{}' and note is null`

async function marked(
  db: Database,
  emails: readonly string[],
  statement: string,
  params: unknown[],
  record: { actor: Actor; action: string; detail: string },
): Promise<MarkOutcome> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ id: string; email: string; outcome: RowOutcome }>(statement, [
      emails.map((email) => email.trim()),
      ...params,
    ])
    await tx.run(TIDY, [rows.map((row) => row.id)])
    const rowsOf = (outcome: RowOutcome) => rows.filter((row) => row.outcome === outcome)
    const changedIds = rowsOf('changed').map((row) => row.id)
    if (changedIds.length > 0)
      await recordAudit(tx, record.actor, {
        action: record.action,
        detail: record.detail,
        entries: changedIds,
      })
    const found = new Set(rows.map((row) => row.email.toLowerCase()))
    return {
      changed: rowsOf('changed').map((row) => row.email),
      unchanged: rowsOf('unchanged').map((row) => row.email),
      unknown: emails.filter((email) => !found.has(email.trim().toLowerCase())),
      full: rowsOf('full').map((row) => row.email),
    }
  })
}

/**
 * Gives each listed address the tag (kept in alphabetical order), and writes "tagged" in the
 * history of each that did not have it. An entry that carries MAX_TAGS already is left as it is and
 * named (`full`), so the table's check never fails the batch for the others. `tag` is readTag's.
 */
export function tagEntries(db: Database, emails: readonly string[], tag: string, { via, actor }: MarkedBy) {
  return marked(
    db,
    emails,
    `with ${ENTRIES},
     tagged as (
       insert into private.entry_marks as m (waitlist_id, tags)
       select id, array[$2::text] from entries
       on conflict (waitlist_id) do update
         set tags = array(select unnest(m.tags || $2::text) order by 1), updated_at = now()
         where not ($2::text = any(m.tags)) and cardinality(m.tags) < $4
       returning waitlist_id
     ),
     told as (
       insert into private.entry_events (waitlist_id, event, detail)
       select waitlist_id, 'tagged', $3 from tagged
     )
     -- m is read as it was before this statement: the tags an entry had when it was refused.
     select e.id::text as id, e.email,
            case when t.waitlist_id is not null then 'changed'
                 when cardinality(m.tags) >= $4 and not ($2::text = any(m.tags)) then 'full'
                 else 'unchanged' end as outcome
       from entries e left join tagged t on t.waitlist_id = e.id
       left join private.entry_marks m on m.waitlist_id = e.id`,
    [tag, `${tag} (${via})`, MAX_TAGS],
    { actor, action: 'tag', detail: tag },
  )
}

/** Takes the tag from each listed address that has it, and writes "untagged" in its history. */
export function untagEntries(db: Database, emails: readonly string[], tag: string, { via, actor }: MarkedBy) {
  return marked(
    db,
    emails,
    `with ${ENTRIES},
     untagged as (
       update private.entry_marks m set tags = array_remove(m.tags, $2::text), updated_at = now()
         from entries where m.waitlist_id = entries.id and $2::text = any(m.tags)
       returning m.waitlist_id
     ),
     told as (
       insert into private.entry_events (waitlist_id, event, detail)
       select waitlist_id, 'untagged', $3 from untagged
     )
     select e.id::text as id, e.email,
            case when u.waitlist_id is not null then 'changed' else 'unchanged' end as outcome
       from entries e left join untagged u on u.waitlist_id = e.id`,
    [tag, `${tag} (${via})`],
    { actor, action: 'untag', detail: tag },
  )
}

/** How a note change reads in the history: the note's start, or that it was cleared. */
const HISTORY_NOTE = 200

/**
 * Writes the entry's note (`note` is readNote's; '' clears it) and a line of its history when it
 * changed. Undefined when no entry has the address; else whether the note changed.
 */
export async function setNote(
  db: Database,
  email: string,
  note: string,
  { via, actor }: MarkedBy,
): Promise<{ email: string; changed: boolean } | undefined> {
  const [first] = [...note]
  const shown = [...note].length > HISTORY_NOTE ? `${[...note].slice(0, HISTORY_NOTE).join('')}…` : note
  const detail = first === undefined ? `(${via})` : `${JSON.stringify(shown)} (${via})`
  // Cleared, the row keeps its tags; written, it is made if need be.
  const write =
    note === ''
      ? `update private.entry_marks m set note = null, updated_at = now()
           from entries where m.waitlist_id = entries.id and m.note is not null
         returning m.waitlist_id`
      : `insert into private.entry_marks as m (waitlist_id, note)
         select id, $2 from entries
         on conflict (waitlist_id) do update set note = excluded.note, updated_at = now()
           where m.note is distinct from excluded.note
         returning waitlist_id`
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ id: string | null; email: string | null; changed: boolean }>(
      `with ${ENTRIES},
       noted as (${write}),
       told as (
         insert into private.entry_events (waitlist_id, event, detail)
         select waitlist_id, case when $2 = '' then 'note cleared' else 'note written' end, left($3, 300) from noted
       )
       select (select id::text from entries) as id, (select email from entries) as email,
              exists (select 1 from noted) as changed`,
      [[email.trim()], note, detail],
    )
    if (!row?.id || !row.email) return undefined
    await tx.run(TIDY, [[row.id]])
    // The record says a note changed, never what it says: the note is the team's, the record everyone's.
    if (row.changed)
      await recordAudit(tx, actor, { action: note === '' ? 'note cleared' : 'note', entries: [row.id] })
    return { email: row.email, changed: row.changed }
  })
}

/**
 * The tags the list's entries carry, alphabetical, each with how many carry it: the studio's filter.
 * From the counts that triggers keep beside the marks (ADR 115), as the counts by status are: the
 * deltas folded first, then a row per tag and per write since, never the marks themselves.
 */
export async function tagsPresent(db: Queryable, limit: number): Promise<{ tag: string; entries: number }[]> {
  await foldKept(db, TAG_ENTRIES)
  return db.query(
    `select tag, sum(entries)::int as entries from ${keptRows(TAG_ENTRIES, 'kept')}
      group by tag having sum(entries) > 0 order by tag limit $1`,
    [limit],
  )
}
