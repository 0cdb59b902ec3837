import type { Queryable } from '../db/database'

/**
 * `import`'s statuses (ADR 039), restored from its staging table (pg_temp.import_rows, filled by
 * server/waitlist/admin/import-staging.ts) in the import's one transaction, in bulk: an entry the
 * import adds takes the file's status and dates as they are; an entry already listed only moves on,
 * never back. A list restored from a backup or moved to another database therefore never mails an
 * address that unsubscribed, nor invites anyone twice.
 */

const DATES = ['confirmed_at', 'invited_at', 'unsubscribed_at', 'bounced_at']
const COLUMNS = ['status', ...DATES].join(', ')
const staged = (names: string) =>
  names
    .split(', ')
    .map((name) => `staged.${name}`)
    .join(', ')

/** A staged row with a status of its own: anything but waiting without dates (no row is waiting). */
const OWN_STATUS = `(staged.status <> 'waiting' or coalesce(${staged(DATES.join(', '))}) is not null)`

/**
 * The statuses of the entries an import added: a statement for a WITH beside the insert, whose
 * RETURNING it reads as `added` (id, email as text). They take the file's status and dates as they are.
 */
export const ADDED_STATUSES_SQL = `
  insert into private.entry_status (waitlist_id, ${COLUMNS})
  select added.id, ${staged(COLUMNS)}
    from added join pg_temp.import_rows staged on staged.email = added.email
   where ${OWN_STATUS}`

// Further along is higher: an import may move an entry on, never back.
const RANK = `array['unconfirmed', 'waiting', 'invited', 'bounced', 'unsubscribed', 'complained']`

/**
 * Moves the entries that were listed before the import on to the file's status when it is further
 * along (by RANK), keeping the dates they have; mail still queued to an entry now unsubscribed or
 * bounced is cancelled. The entries the import added hold the file's status already, so they are
 * left as they are. Returns how many listed entries moved on to invited, bounced or unsubscribed.
 */
export async function raiseListedStatuses(tx: Queryable): Promise<number> {
  const [row] = await tx.query<{ raised: number }>(
    `with written as (
       insert into private.entry_status as current (waitlist_id, ${COLUMNS})
       select listed.id, ${staged(COLUMNS)}
         from pg_temp.import_rows staged
         join public.waitlist listed on listed.email operator(extensions.=) staged.email::extensions.citext
        where ${OWN_STATUS} and staged.status <> 'unconfirmed'
       on conflict (waitlist_id) do update
         set status = excluded.status, updated_at = now(),
             ${DATES.map((date) => `${date} = coalesce(current.${date}, excluded.${date})`).join(', ')}
         where array_position(${RANK}, excluded.status) > array_position(${RANK}, current.status)
       returning waitlist_id, status
     ),
     cancelled as (
       update private.mail_outbox queued set status = 'cancelled'
         from written
        where queued.waitlist_id = written.waitlist_id and queued.status = 'pending'
          and written.status in ('unsubscribed', 'bounced', 'complained')
     )
     select count(*) filter (where status <> 'waiting')::int as raised from written`,
  )
  return row?.raised ?? 0
}
