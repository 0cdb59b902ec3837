/**
 * The windows the funnel is read over, the same in the CLI (`funnel --days`) and the studio's
 * Funnel panel, and the one both open on: the whole list, since a beta's batches, resends and joins
 * span months, and an entry imported from before the last 30 days is still on the way to the beta.
 * A window counts the entries who signed up in it (by source) or the batches queued in it (by batch).
 */
export const FUNNEL_WINDOWS = ['30', '90', 'all'] as const

export type FunnelWindow = (typeof FUNNEL_WINDOWS)[number]

export const DEFAULT_FUNNEL_WINDOW: FunnelWindow = 'all'

export const isFunnelWindow = (value: string): value is FunnelWindow =>
  (FUNNEL_WINDOWS as readonly string[]).includes(value)

/** How a window is named beside the funnel: `the last 30 days`, `the whole list`. */
export const funnelWindowName = (days: FunnelWindow) =>
  days === 'all' ? 'the whole list' : `the last ${days} days`
