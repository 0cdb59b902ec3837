/**
 * What an import keeps of a person beside the entry (ADR 116): the name (private.entry_names, the
 * first name too when the file split it) and the file's unplaced columns as the entry's details
 * (private.entry_details, header → value). Neither is on public.waitlist, so the page's insert
 * writes neither. The staged row carries them after ENTRY_COLUMNS (import-staging.ts).
 */

/** The staged columns after ENTRY_COLUMNS' (whose `name` is the name itself), in COPY order. */
export const STAGED_EXTRAS = [
  { name: 'given_name', type: 'text' },
  { name: 'details', type: 'jsonb' },
] as const

/** The names of the entries `from` joins (a staged row and its entry, `added`); `listed`: keep any it has. */
export const namesSql = (from: string, listed = false) => `
  insert into private.entry_names (waitlist_id, name, given_name)
  select added.id, staged.name, staged.given_name from ${from} where staged.name is not null
  ${listed ? 'on conflict (waitlist_id) do nothing' : ''}`

/**
 * The names and details of the entries `from` joins, in one statement: the staged rows are matched
 * to their entries once, not once for each table (a join of a million rows each).
 */
export const peopleSql = (from: string) => `
  with people as materialized (
    select added.id, staged.name, staged.given_name, staged.details from ${from}
     where staged.name is not null or staged.details is not null
  ),
  named as (
    insert into private.entry_names (waitlist_id, name, given_name)
    select id, name, given_name from people where name is not null
  )
  insert into private.entry_details (waitlist_id, details)
  select id, details from people where details is not null`

/** The details of the entries `from` joins; `listed`: an entry with details of its own keeps them. */
export const detailsSql = (from: string, listed = false) => `
  insert into private.entry_details (waitlist_id, details)
  select added.id, staged.details from ${from} where staged.details is not null
  ${listed ? 'on conflict (waitlist_id) do nothing' : ''}`
