/**
 * Statuses for a list loaded in bulk (the million bench, the big-list test), as a beta under way has
 * them: one entry in ten invited (one in twenty of those since unsubscribed), one in 500 bounced,
 * one in seven of the rest confirmed and waiting, each with its dates; the others waiting with no
 * row. Run as the owner once the list is in: the statuses then travel through
 * export's COPY and import's staging table like any other column.
 */
export const GIVE_STATUSES_SQL = `
  insert into private.entry_status (waitlist_id, status, confirmed_at, invited_at, unsubscribed_at, bounced_at)
  select id, kind,
         case when kind = 'waiting' then created_at + interval '1 hour' end,
         case when kind in ('invited', 'unsubscribed', 'bounced') then created_at + interval '1 day' end,
         case when kind = 'unsubscribed' then created_at + interval '2 days' end,
         case when kind = 'bounced' then created_at + interval '1 day 1 minute' end
    from (select id, created_at,
                 case when id % 200 = 0 then 'unsubscribed'
                      when id % 10 = 0 then 'invited'
                      when id % 500 = 1 then 'bounced'
                      else 'waiting' end as kind
            from public.waitlist
           where id % 10 = 0 or id % 500 = 1 or id % 7 = 0) as picked`
