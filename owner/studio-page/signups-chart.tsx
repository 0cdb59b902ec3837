import type { DayCount } from '../../server/admin/funnel'
import type { Range } from './api'
import type { DayVisits } from './sources-api'

const RANGES: { value: Range; label: string }[] = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: 'all', label: 'All' },
]

const HEIGHT = 120

function summarize(days: readonly DayCount[]): string {
  const sum = days.reduce((total, day) => total + day.count, 0)
  const busiest = days.reduce<DayCount | undefined>(
    (best, day) => (day.count > (best?.count ?? 0) ? day : best),
    undefined,
  )
  const from = days[0]?.day ?? ''
  const to = days.at(-1)?.day ?? ''
  const peak = busiest ? `; the busiest day was ${busiest.day} with ${busiest.count}` : ''
  return `Signups per day from ${from} to ${to}: ${sum} in all${peak}.`
}

/** What the visits add to the chart's description. */
function summarizeVisits(visits: ReadonlyMap<string, number>): string {
  const sum = [...visits.values()].reduce((total, count) => total + count, 0)
  return ` Visits, beside them on a scale of their own: ${sum} in all.`
}

/** Signups per UTC day as SVG bars, visits beside them when counted, with a choice of range. */
export function SignupsChart(props: {
  days: readonly DayCount[]
  /** Visits per day (the days with any); each series has its own scale. */
  visits?: readonly DayVisits[]
  range: Range
  onRangeChange(range: Range): void
}) {
  const { days, range } = props
  const peak = Math.max(0, ...days.map((day) => day.count))
  const max = Math.max(1, peak)
  const visits = new Map(props.visits?.map((day) => [day.day, day.visits]))
  const maxVisits = Math.max(0, ...visits.values())
  const width = Math.max(days.length, 1) * 10
  return (
    <section aria-labelledby="chart-heading" className="rounded-lg border border-line bg-panel p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="chart-heading" className="text-lg font-semibold">
          Signups per day <span className="text-sm font-normal text-soft">(UTC)</span>
        </h2>
        <RangeChoice range={range} onRangeChange={props.onRangeChange} />
      </div>
      <svg
        role="img"
        aria-label={summarize(days) + (maxVisits > 0 ? summarizeVisits(visits) : '')}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        className="mt-3 h-32 w-full"
      >
        {days.map((day, index) => (
          <DayBars
            key={day.day}
            day={day}
            index={index}
            max={max}
            visits={visits.get(day.day)}
            maxVisits={maxVisits}
          />
        ))}
      </svg>
      {maxVisits > 0 && <VisitsLegend maxVisits={maxVisits} maxSignups={peak} />}
      <div className="flex justify-between text-xs text-soft">
        <span>{days[0]?.day}</span>
        {/* With visits beside them, the legend gives each series' peak: said once, not twice. */}
        {maxVisits === 0 && <span>most in a day: {peak}</span>}
        <span>{days.at(-1)?.day}</span>
      </div>
    </section>
  )
}

/** The days shown: buttons, the chosen one pressed. */
function RangeChoice({ range, onRangeChange }: { range: Range; onRangeChange(range: Range): void }) {
  return (
    <fieldset className="flex gap-1">
      <legend className="sr-only">Days shown</legend>
      {RANGES.map((option) => (
        <button
          key={option.value}
          type="button"
          aria-pressed={range === option.value}
          onClick={() => onRangeChange(option.value)}
          className="rounded border border-line px-2 py-1 text-sm aria-pressed:border-button aria-pressed:bg-button aria-pressed:text-button-ink focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
        >
          {option.label}
        </button>
      ))}
    </fieldset>
  )
}

const barHeight = (count: number, max: number) => (count === 0 ? 0 : Math.max(2, (count / max) * HEIGHT))

/** One day: its signups bar, and when visits are counted, their bar on the left half of the day. */
function DayBars(props: { day: DayCount; index: number; max: number; visits?: number; maxVisits: number }) {
  const { day, index, max, maxVisits } = props
  const visits = props.visits ?? 0
  const signups = barHeight(day.count, max)
  if (maxVisits === 0) {
    return (
      <rect x={index * 10 + 1} y={HEIGHT - signups} width={8} height={signups} className="fill-accent">
        <title>{`${day.day}: ${day.count}`}</title>
      </rect>
    )
  }
  const visitsHeight = barHeight(visits, maxVisits)
  return (
    <g>
      <title>{`${day.day}: ${visits} ${visits === 1 ? 'visit' : 'visits'}, ${day.count} ${day.count === 1 ? 'signup' : 'signups'}`}</title>
      <rect
        x={index * 10 + 1}
        y={HEIGHT - visitsHeight}
        width={4}
        height={visitsHeight}
        className="fill-soft"
      />
      <rect x={index * 10 + 5} y={HEIGHT - signups} width={4} height={signups} className="fill-accent" />
    </g>
  )
}

function VisitsLegend({ maxVisits, maxSignups }: { maxVisits: number; maxSignups: number }) {
  return (
    <p className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-soft">
      <span>
        <span aria-hidden="true" className="mr-1 inline-block size-2.5 bg-soft" />
        visits (most in a day: {maxVisits})
      </span>
      <span>
        <span aria-hidden="true" className="mr-1 inline-block size-2.5 bg-accent" />
        signups (most in a day: {maxSignups})
      </span>
      <span>each on its own scale</span>
    </p>
  )
}
