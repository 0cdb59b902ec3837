import type { Queryable } from '../db/database'
import { rateOf } from './rate'
import { MCP_SOURCE, NO_VISIT } from './source-of'
import { windowStart } from './utc-day'

/**
 * The owner's reading of the counts the server writes (server/analytics/): visits, visitors and
 * signups per source over a window of UTC days, summed. Reporting only: nothing here writes.
 */

export interface CampaignCounts {
  medium: string
  campaign: string
  visits: number
  visitors: number
  signups: number
  /** As the source's, for this medium and campaign. */
  conversion: number | null
}

/**
 * `page`: visits to the page from a source, and signups made on its pages by a browser.
 * `no-visit`: signups that came with no counted page visit: `(api)` (API calls, scripts, HTTP
 * libraries, headless browsers) and `mcp` (agents through /mcp). They have no visitors, so no
 * conversion, and count in no page source's.
 */
export type SourceKind = 'page' | 'no-visit'

/** The rows of signups with no page visit. */
const NO_VISIT_SOURCES: ReadonlySet<string> = new Set([NO_VISIT.source, MCP_SOURCE])

export function kindOf(source: string): SourceKind {
  return NO_VISIT_SOURCES.has(source) ? 'no-visit' : 'page'
}

/**
 * The conversion: signups per visit, the one rate the funnel's signups step gives too (funnel.ts),
 * for a page row with visits; null otherwise. At most 1 (rate.ts): people who came by an untagged
 * link sign up as `direct` (docs/analytics.md), so `direct` can have more signups than visits; it
 * reads 100%, not more. Visitors are a count of their own, never a rate's whole.
 */
export function conversionOf(kind: SourceKind, signups: number, visits: number): number | null {
  return kind === 'page' ? rateOf(signups, visits) : null
}

export interface SourceCounts {
  source: string
  kind: SourceKind
  visits: number
  visitors: number
  signups: number
  /** The conversion: signups per visit, at most 1; null for a `no-visit` row or one with no counted visit. */
  conversion: number | null
  /** The same counts by medium and campaign, largest first. */
  campaigns: CampaignCounts[]
}

export interface DayVisits {
  /** YYYY-MM-DD, UTC. */
  day: string
  visits: number
  visitors: number
}

// A day still open counts its visitors from its bits; a closed one has the number.
const VISITORS = 'coalesce(visitors, private.visitors_seen(visitor_bits))'

type CountRow = {
  source: string
  medium: string
  campaign: string
  visits: string
  visitors: string
  signups: string
}

/** Per source, largest first (by signups, then visits, then visitors), each with its campaigns. */
export async function sourcesReport(
  db: Queryable,
  days: number | 'all',
  now = new Date(),
): Promise<SourceCounts[]> {
  const rows = await db.query<CountRow>(
    `select source, medium, campaign, sum(visits) as visits, sum(${VISITORS}) as visitors, sum(signups) as signups
       from private.source_counts
      where $1::date is null or day >= $1::date
      group by source, medium, campaign`,
    [windowStart(days, now)],
  )
  const bySource = new Map<string, SourceCounts>()
  for (const row of rows) {
    const counts = {
      visits: Number(row.visits),
      visitors: Number(row.visitors),
      signups: Number(row.signups),
    }
    let source = bySource.get(row.source)
    if (!source) {
      const kind = kindOf(row.source)
      source = {
        source: row.source,
        kind,
        visits: 0,
        visitors: 0,
        signups: 0,
        conversion: null,
        campaigns: [],
      }
      bySource.set(row.source, source)
    }
    source.visits += counts.visits
    source.visitors += counts.visitors
    source.signups += counts.signups
    const conversion = conversionOf(source.kind, counts.signups, counts.visits)
    source.campaigns.push({ medium: row.medium, campaign: row.campaign, ...counts, conversion })
  }
  const sources = [...bySource.values()]
  for (const source of sources) {
    source.conversion = conversionOf(source.kind, source.signups, source.visits)
    source.campaigns.sort(largestFirst)
  }
  return sources.sort(largestFirst)
}

type Ranked = {
  signups: number
  visits: number
  visitors: number
  source?: string
  medium?: string
  campaign?: string
}

/** Most signups first, then most visits, then most visitors; ties by name, so the order is stable. */
function largestFirst(a: Ranked, b: Ranked): number {
  const name = (x: Ranked) => `${x.source ?? ''}\n${x.medium ?? ''}\n${x.campaign ?? ''}`
  return (
    b.signups - a.signups || b.visits - a.visits || b.visitors - a.visitors || name(a).localeCompare(name(b))
  )
}

/** Visits and visitors per UTC day in the window, days with none left out. */
export async function visitsPerDay(
  db: Queryable,
  days: number | 'all',
  now = new Date(),
): Promise<DayVisits[]> {
  const rows = await db.query<{ day: string; visits: string; visitors: string }>(
    `select to_char(day, 'YYYY-MM-DD') as day, sum(visits) as visits, sum(${VISITORS}) as visitors
       from private.source_counts
      where $1::date is null or day >= $1::date
      group by day
     having sum(visits) > 0
      order by day`,
    [windowStart(days, now)],
  )
  return rows.map((row) => ({ day: row.day, visits: Number(row.visits), visitors: Number(row.visitors) }))
}

/** The studio's Sources panel and the visits on its chart, for one window. */
export async function sourcesSummary(
  db: Queryable,
  days: number | 'all',
  now = new Date(),
): Promise<{ sources: SourceCounts[]; days: DayVisits[] }> {
  return { sources: await sourcesReport(db, days, now), days: await visitsPerDay(db, days, now) }
}
