import type { Queryable } from '../../db/database'
import type { Entry } from '../admin/waitlist-admin'

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`
const dateColumn = (name: string) => `coalesce(to_char(s.${name} at time zone 'UTC', ${ISO}), '') as ${name}`

/** The status and dates of a waitlist row aliased `w` left-joined to private.entry_status aliased `s`. */
export const STATE_COLUMNS = [
  `coalesce(s.status, 'waiting') as status`,
  ...['confirmed_at', 'invited_at', 'unsubscribed_at', 'bounced_at'].map(dateColumn),
].join(', ')

// Further along is higher: an import may move an entry on, never back.
const RANK = `array['unconfirmed', 'waiting', 'invited', 'bounced', 'unsubscribed']`

/**
 * The file's rows joined to their entries: `fresh` when this import added the entry (it takes the
 * file's status as it is), else the entry was listed already.
 */
const FILE_ROWS = `
  select w.id, w.id = any($7::bigint[]) as fresh, t.status,
         nullif(t.confirmed_at, '')::timestamptz as confirmed_at, nullif(t.invited_at, '')::timestamptz as invited_at,
         nullif(t.unsubscribed_at, '')::timestamptz as unsubscribed_at, nullif(t.bounced_at, '')::timestamptz as bounced_at
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
         as t(email, status, confirmed_at, invited_at, unsubscribed_at, bounced_at)
    join public.waitlist w on w.email operator(extensions.=) t.email::extensions.citext`

/**
 * Restores the statuses an `export` carried, in the import's transaction. An entry the import added
 * gets the file's status and dates as they are. An entry already listed only moves on (waiting to
 * invited, anything to unsubscribed), never back, keeping the dates it has: a list restored from a
 * backup or moved to another database never mails an address that unsubscribed, nor invites anyone
 * twice. Mail still queued for an entry now unsubscribed or bounced is cancelled. Returns how many
 * listed entries moved on.
 */
export async function importStatuses(
  tx: Queryable,
  batch: readonly Entry[],
  fresh: Set<string>,
): Promise<number> {
  const rows = batch.filter(
    (entry) => entry.state && Object.values(entry.state).some((v) => v !== '' && v !== 'waiting'),
  )
  if (rows.length === 0) return 0
  const column = (pick: (entry: Entry) => string | undefined) => rows.map((entry) => pick(entry) ?? '')
  const [moved] = await tx.query<{ raised: number }>(
    `with file as (${FILE_ROWS}),
     written as (
       insert into private.entry_status (waitlist_id, status, confirmed_at, invited_at, unsubscribed_at, bounced_at)
       select id, status, confirmed_at, invited_at, unsubscribed_at, bounced_at from file
        where fresh or status <> 'unconfirmed'
       on conflict (waitlist_id) do update
         set status = excluded.status, updated_at = now(),
             confirmed_at = coalesce(private.entry_status.confirmed_at, excluded.confirmed_at),
             invited_at = coalesce(private.entry_status.invited_at, excluded.invited_at),
             unsubscribed_at = coalesce(private.entry_status.unsubscribed_at, excluded.unsubscribed_at),
             bounced_at = coalesce(private.entry_status.bounced_at, excluded.bounced_at)
         where array_position(${RANK}, excluded.status) > array_position(${RANK}, private.entry_status.status)
       returning waitlist_id, status
     ),
     cancelled as (
       update private.mail_outbox o set status = 'cancelled'
         from written
        where o.waitlist_id = written.waitlist_id and o.status = 'pending'
          and written.status in ('unsubscribed', 'bounced')
     )
     select count(*) filter (where not file.fresh and file.status <> 'waiting')::int as raised
       from written join file on file.id = written.waitlist_id`,
    [
      column((entry) => entry.email),
      column((entry) => entry.state?.status),
      column((entry) => entry.state?.confirmed_at),
      column((entry) => entry.state?.invited_at),
      column((entry) => entry.state?.unsubscribed_at),
      column((entry) => entry.state?.bounced_at),
      [...fresh],
    ],
  )
  return moved?.raised ?? 0
}
