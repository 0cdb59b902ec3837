import type { DayVisits, SourceCounts } from '../../server/admin/funnel'
import { type Range, send } from './api'

export type { DayVisits, SourceCounts }

/** The studio server's /api/sources: the Sources panel's rows and the chart's visits, for one range. */
export interface SourcesSummary {
  sources: SourceCounts[]
  days: DayVisits[]
}

export function fetchSources(range: Range): Promise<SourcesSummary> {
  return send(`/api/sources?days=${range}`)
}
