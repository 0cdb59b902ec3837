/**
 * A rate of one count to another, for every report that shows one (the sources' conversion, each
 * step of the funnel): null where there is nothing to divide by, and never above 1. A part can
 * outnumber its whole only where they are counted apart: a visit is counted under the site that
 * linked while its signup, made on an untagged page, is `direct` (docs/analytics.md). Such a rate
 * then reads 100%, a ceiling rather than a measure; signups with no counted visit at all are kept out
 * of every per-visit rate by the callers.
 */
export function rateOf(part: number, whole: number | undefined): number | null {
  if (whole === undefined || whole <= 0) return null
  return Math.min(1, part / whole)
}
