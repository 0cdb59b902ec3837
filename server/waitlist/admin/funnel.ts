import type { FunnelWindow } from '../../../contract/funnel-windows'
import { rateOf } from '../../analytics/rate'
import { MCP_SOURCE, NO_VISIT } from '../../analytics/source-of'
import { windowStart } from '../../analytics/utc-day'
import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { type FunnelAgent, stepsByAgent } from './funnel-by-agent'

/**
 * From the list to the beta, step by step: visits (counted by source, docs/analytics.md), signups,
 * confirmed, invited, joined. Every figure counts people, each once, whatever the view: the steps
 * are entries, read from the list itself, each step a part of the one before (an entry invited was
 * confirmed, one joined was invited), so no step's rate passes 100%. By source, signups are a rate
 * of visits only where they were made on a counted page visit; the rest (the API, MCP and WebMCP's
 * answers through it, imports) have a row of their own and are never divided by visits. By batch, a
 * person belongs to one batch: the one whose invitation they redeemed, else their latest.
 */
export interface FunnelRow {
  /**
   * `page`: a source whose page visits are counted, and the entries who signed up on them;
   * `no-visit`: every entry made with no counted page visit (the CLI's and studio's "no visit counted").
   */
  kind?: 'page' | 'no-visit'
  /** A page row's source (`direct`, a utm_source or ref, a site); null for the no-visit row. */
  source?: string | null
  /**
   * A batch's row: one `invite` run, `size` the invitations it queued (people resent later count in a
   * later batch), `erased` how many of the people it counts were erased since (counted still, as the
   * record counts them: erased-counts.ts).
   */
  batch?: {
    id: number
    at: string
    by: 'cli' | 'studio'
    size: number
    chosenBy: string | null
    erased: number
  }
  /** An agent's row (funnel-by-agent.ts): who, and whether verified; name null for the entries no agent made. */
  agent?: FunnelAgent
  /** Page visits: each page row, and the total; never for the no-visit row or a batch. */
  visits?: number
  signups: number
  /** The total by source: the signups made on a counted page visit, the part its visits rate is of. */
  signupsOnVisits?: number
  /** Entries past the confirmation: every entry but the unconfirmed (with confirmation off, all). */
  confirmed: number
  /** Confirmed entries invited at least once. */
  invited: number
  /** Invited entries that joined the beta (redeemed a code), whatever they did after. */
  joined: number
  /** Each step's rate of the step before it, at most 1; null where there is none. */
  rates: { signups: number | null; confirmed: number | null; invited: number | null; joined: number | null }
}

export interface Funnel {
  window: FunnelWindow
  total: FunnelRow
  rows: FunnelRow[]
}

export type FunnelBy = 'source' | 'batch' | 'agent'

interface Steps {
  visits?: number
  signups: number
  signupsOnVisits?: number
  confirmed: number
  invited: number
  joined: number
}

/** A rate as the funnel shows it: rate.ts's (at most 1), to a tenth of a percent. */
const rate = (part: number, whole: number | undefined) => {
  const value = rateOf(part, whole)
  return value === null ? null : Math.round(1000 * value) / 1000
}

function withRates(steps: Steps): Pick<FunnelRow, 'rates'> {
  return {
    rates: {
      signups: rate(steps.signupsOnVisits ?? steps.signups, steps.visits),
      confirmed: rate(steps.confirmed, steps.signups),
      invited: rate(steps.invited, steps.confirmed),
      joined: rate(steps.joined, steps.invited),
    },
  }
}

// Each step within the one before: an entry counts as invited only once confirmed, as joined only
// once invited, so an imported status can never make a step outnumber the one it is a rate of.
const CONFIRMED = `coalesce(s.status, 'waiting') <> 'unconfirmed'`
const INVITED = `${CONFIRMED} and (s.invited_at is not null or s.status in ('invited', 'joined'))`
const JOINED = `${INVITED} and (s.joined_at is not null or s.status = 'joined')`

/**
 * An entry made on a counted page visit: named by a page's source, by the server itself at the
 * page's doors (the REST insert and the no-script form from a browser), which also keep its network.
 * Not one: `(api)` and `mcp` (the WebMCP tool's answers come through /mcp), an entry kept without a
 * source (counting off, or from before sources), and an import, which keeps a source but no network.
 */
const ON_VISIT = `(w.source is not null and w.source not in ('${NO_VISIT.source}', '${MCP_SOURCE}')
                   and w.signup_network is not null)`

const STEPS = `count(*)::int as signups,
  count(*) filter (where ${CONFIRMED})::int as confirmed,
  count(*) filter (where ${INVITED})::int as invited,
  count(*) filter (where ${JOINED})::int as joined`

const row = (steps: Steps & Omit<FunnelRow, 'rates'>): FunnelRow => ({ ...steps, ...withRates(steps) })

/** The page rows (entries on visits, and sources with visits alone), most signups first, then the no-visit row. */
async function bySource(db: Queryable, from: string | null, window: FunnelWindow): Promise<Funnel> {
  const entries = await db.query<Steps & { source: string | null }>(
    `select case when ${ON_VISIT} then w.source end as source, ${STEPS}
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where $1::date is null or w.created_at >= $1::date
      group by 1`,
    [from],
  )
  const visits = await db.query<{ source: string; visits: number }>(
    `select source, sum(visits)::int as visits from private.source_counts
      where ($1::date is null or day >= $1::date) and visits > 0 group by source`,
    [from],
  )
  const visitsOf = new Map(visits.map((each) => [each.source, each.visits]))
  const onVisits = entries.filter((each) => each.source !== null)
  const pages = onVisits.map(({ source, ...steps }) =>
    row({ kind: 'page', source, visits: visitsOf.get(source as string) ?? 0, ...steps }),
  )
  for (const [source, count] of visitsOf)
    if (!onVisits.some((each) => each.source === source))
      pages.push(
        row({ kind: 'page', source, visits: count, signups: 0, confirmed: 0, invited: 0, joined: 0 }),
      )
  pages.sort(
    (a, b) =>
      b.signups - a.signups ||
      (b.visits ?? 0) - (a.visits ?? 0) ||
      (a.source ?? '').localeCompare(b.source ?? ''),
  )
  const noVisit = entries.find((each) => each.source === null)
  const rows = noVisit ? [...pages, row({ ...noVisit, kind: 'no-visit', source: null })] : pages
  const total = sum(rows, {
    visits: [...visitsOf.values()].reduce((all, count) => all + count, 0),
    signupsOnVisits: pages.reduce((all, page) => all + page.signups, 0),
  })
  return { window, total, rows }
}

/**
 * Each batch (one `invite` run) queued in the window, and the people it counts: each invited entry
 * belongs to one batch, the one whose invitation it redeemed, else its latest (a resend moves a
 * person to the later batch), and those of them erased since, whom the batch keeps as counts
 * (erased-counts.ts). Every one of them had signed up and was past its confirmation, so those
 * steps are its people.
 */
async function byBatch(db: Queryable, from: string | null, window: FunnelWindow): Promise<Funnel> {
  const batches = await db.query<NonNullable<FunnelRow['batch']> & { invited: number; joined: number }>(
    `with person as (
       select distinct on (o.waitlist_id) o.waitlist_id, o.batch_id
         from private.mail_outbox o
        where o.kind = 'invitation' and o.batch_id is not null
        order by o.waitlist_id, (o.redeemed_at is not null) desc, o.id desc
     )
     select b.id::int as id, ${isoUtc('b.created_at')} as at, b.invited_by as by, b.size, b.chosen_by as "chosenBy",
            b.erased, count(p.waitlist_id)::int + b.erased as invited,
            count(p.waitlist_id) filter (where s.joined_at is not null or s.status = 'joined')::int
              + b.erased_joined as joined
       from private.invite_batches b
       left join person p on p.batch_id = b.id
       left join private.entry_status s on s.waitlist_id = p.waitlist_id
      where $1::date is null or b.created_at >= $1::date
      group by b.id order by b.id`,
    [from],
  )
  const rows = batches.map(({ invited, joined, ...batch }) =>
    row({ batch, signups: invited, confirmed: invited, invited, joined }),
  )
  return { window, total: sum(rows), rows }
}

/** The total row: the rows' people summed (each is in one row), with the visits when by source. */
function sum(rows: readonly FunnelRow[], pages?: { visits: number; signupsOnVisits: number }): FunnelRow {
  const add = (step: 'signups' | 'confirmed' | 'invited' | 'joined') =>
    rows.reduce((all, each) => all + each[step], 0)
  return row({
    ...pages,
    signups: add('signups'),
    confirmed: add('confirmed'),
    invited: add('invited'),
    joined: add('joined'),
  })
}

/** The funnel over a window (funnel-windows.ts: the last 30 or 90 days, or all), by source, batch or agent. */
export function funnel(db: Queryable, by: FunnelBy, window: FunnelWindow, now = new Date()): Promise<Funnel> {
  const from = windowStart(window === 'all' ? 'all' : Number(window), now)
  if (by === 'agent') return byAgent(db, from, window)
  return by === 'batch' ? byBatch(db, from, window) : bySource(db, from, window)
}

/** Each agent's entries, the verified apart from the declared, then those no agent made. */
async function byAgent(db: Queryable, from: string | null, window: FunnelWindow): Promise<Funnel> {
  const rows = (await stepsByAgent(db, from, STEPS)).map((steps) => row(steps))
  return { window, total: sum(rows), rows }
}
