/**
 * How the list grows and converts (ADR 113): signups per day, visits and signups by source, and
 * the funnel from signup to joined by source, batch or agent, and the signups agents made. The CLI's `stats`, `sources` and `funnel`,
 * and the studio's chart, sources and funnel panels, call these.
 */
export {
  type CampaignCounts,
  conversionOf,
  type DayVisits,
  type SourceCounts,
  sourcesReport,
  sourcesSummary,
} from '../analytics/sources-report'
export { type Funnel, type FunnelBy, type FunnelRow, funnel } from '../waitlist/admin/funnel'
export { type SourceAgentSignups, signupsByAgent } from '../waitlist/admin/funnel-by-agent'
export { type DayCount, signupsPerDay } from '../waitlist/admin/waitlist-admin'
