import { MCP_SOURCE, NO_VISIT } from '../../analytics/source-of'
import { windowStart } from '../../analytics/utc-day'
import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'

/**
 * From the list to the beta, step by step: visits (counted by source, docs/analytics.md), signups,
 * confirmed, invited, joined. The steps are entries, so they are read from the list itself; a
 * step's rate is of the step before it (of visits, for signups).
 */
export interface FunnelRow {
  /** A source's row: its name (`direct`, `(api)`, `mcp`, a utm_source, a site); null for entries kept without one. */
  source?: string | null
  /** A batch's row: one `invite` run. */
  batch?: { id: number; at: string; by: 'cli' | 'studio'; size: number; chosenBy: string | null }
  /** Page visits, where counted: the total and each source; never for a batch. */
  visits?: number
  signups: number
  /** Entries past the confirmation: every entry but the unconfirmed (with confirmation off, all). */
  confirmed: number
  invited: number
  joined: number
  rates: { signups: number | null; confirmed: number | null; invited: number | null; joined: number | null }
}

export interface Funnel {
  total: FunnelRow
  rows: FunnelRow[]
}

export type FunnelBy = 'source' | 'batch'

interface Steps {
  visits?: number
  signups: number
  confirmed: number
  invited: number
  joined: number
}

const rate = (part: number, whole: number | undefined) =>
  whole === undefined || whole === 0 ? null : Math.round((1000 * part) / whole) / 1000

function withRates(steps: Steps): Pick<FunnelRow, 'rates'> {
  return {
    rates: {
      signups: rate(steps.signups, steps.visits),
      confirmed: rate(steps.confirmed, steps.signups),
      invited: rate(steps.invited, steps.confirmed),
      joined: rate(steps.joined, steps.invited),
    },
  }
}

const STEPS = `count(*)::int as signups,
  count(*) filter (where coalesce(s.status, 'waiting') <> 'unconfirmed')::int as confirmed,
  count(*) filter (where s.invited_at is not null or s.status in ('invited', 'joined'))::int as invited,
  count(*) filter (where s.joined_at is not null or s.status = 'joined')::int as joined`

/**
 * A source's visits: none for entries kept without a source, nor for the signups that come with no
 * page visit at all (`(api)`, `mcp`: the sources report's no-visit rows), whose signups-of-visits
 * rate would mean nothing.
 */
function visitsFor(source: string | null, visitsOf: ReadonlyMap<string, number>): number | undefined {
  if (source === null || source === NO_VISIT.source || source === MCP_SOURCE) return undefined
  return visitsOf.get(source) ?? 0
}

/** Each source's entries (signed up in the window) and visits, and the total. */
async function bySource(db: Queryable, from: string | null): Promise<Funnel> {
  const entries = await db.query<Steps & { source: string | null }>(
    `select w.source, ${STEPS}
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where $1::date is null or w.created_at >= $1::date
      group by w.source`,
    [from],
  )
  const visits = await db.query<{ source: string; visits: number }>(
    `select source, sum(visits)::int as visits from private.source_counts
      where $1::date is null or day >= $1::date group by source`,
    [from],
  )
  const visitsOf = new Map(visits.map((row) => [row.source, row.visits]))
  const rows: FunnelRow[] = entries.map((row) => {
    const steps = { ...row, visits: visitsFor(row.source, visitsOf) }
    return { ...steps, ...withRates(steps) }
  })
  for (const [source, count] of visitsOf)
    if (!entries.some((row) => row.source === source)) {
      const steps = { source, visits: count, signups: 0, confirmed: 0, invited: 0, joined: 0 }
      rows.push({ ...steps, ...withRates(steps) })
    }
  rows.sort((a, b) => b.signups - a.signups || (b.visits ?? 0) - (a.visits ?? 0))
  const total = sum(
    rows,
    [...visitsOf.values()].reduce((all, count) => all + count, 0),
  )
  return { total, rows }
}

/**
 * Each batch (one `invite` run) queued in the window: the entries it invited, and of them who joined.
 * Every entry a batch invited had signed up and was past its confirmation, so those steps are its size.
 */
async function byBatch(db: Queryable, from: string | null): Promise<Funnel> {
  const batches = await db.query<{
    id: number
    at: string
    by: 'cli' | 'studio'
    size: number
    chosenBy: string | null
    invited: number
    joined: number
  }>(
    `select b.id::int as id, ${isoUtc('b.created_at')} as at, b.invited_by as by, b.size, b.chosen_by as "chosenBy",
            count(distinct o.waitlist_id)::int as invited,
            count(distinct o.waitlist_id) filter (where o.redeemed_at is not null)::int as joined
       from private.invite_batches b left join private.mail_outbox o on o.batch_id = b.id
      where $1::date is null or b.created_at >= $1::date
      group by b.id order by b.id`,
    [from],
  )
  const rows = batches.map(({ invited, joined, ...batch }) => {
    const steps = { signups: invited, confirmed: invited, invited, joined }
    return { batch, ...steps, ...withRates(steps) }
  })
  return { total: sum(rows), rows }
}

function sum(rows: readonly FunnelRow[], visits?: number): FunnelRow {
  const add = (step: keyof Steps) => rows.reduce((all, row) => all + (row[step] ?? 0), 0)
  const steps = {
    ...(visits === undefined ? {} : { visits }),
    signups: add('signups'),
    confirmed: add('confirmed'),
    invited: add('invited'),
    joined: add('joined'),
  }
  return { ...steps, ...withRates(steps) }
}

/** The funnel over the last `days` days (or all), by source (the default) or by batch. */
export function funnel(db: Queryable, by: FunnelBy, days: number | 'all', now = new Date()): Promise<Funnel> {
  const from = windowStart(days, now)
  return by === 'batch' ? byBatch(db, from) : bySource(db, from)
}
