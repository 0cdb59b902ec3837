import type { DayCount, Range } from './api'

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

/** Signups per UTC day as SVG bars, with a choice of range. */
export function SignupsChart(props: {
  days: readonly DayCount[]
  range: Range
  onRangeChange(range: Range): void
}) {
  const { days, range } = props
  const max = Math.max(1, ...days.map((day) => day.count))
  const width = Math.max(days.length, 1) * 10
  return (
    <section aria-labelledby="chart-heading" className="rounded-lg border border-line bg-panel p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="chart-heading" className="text-lg font-semibold">
          Signups per day <span className="text-sm font-normal text-soft">(UTC)</span>
        </h2>
        <fieldset className="flex gap-1">
          <legend className="sr-only">Days shown</legend>
          {RANGES.map((option) => (
            <button
              key={option.value}
              type="button"
              aria-pressed={range === option.value}
              onClick={() => props.onRangeChange(option.value)}
              className="rounded border border-line px-2 py-1 text-sm aria-pressed:border-button aria-pressed:bg-button aria-pressed:text-button-ink focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
            >
              {option.label}
            </button>
          ))}
        </fieldset>
      </div>
      <svg
        role="img"
        aria-label={summarize(days)}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        className="mt-3 h-32 w-full"
      >
        {days.map((day, index) => {
          const height = day.count === 0 ? 0 : Math.max(2, (day.count / max) * HEIGHT)
          return (
            <rect
              key={day.day}
              x={index * 10 + 1}
              y={HEIGHT - height}
              width={8}
              height={height}
              className="fill-accent"
            >
              <title>{`${day.day}: ${day.count}`}</title>
            </rect>
          )
        })}
      </svg>
      <div className="flex justify-between text-xs text-soft">
        <span>{days[0]?.day}</span>
        <span>most in a day: {max === 1 && days.every((day) => day.count === 0) ? 0 : max}</span>
        <span>{days.at(-1)?.day}</span>
      </div>
    </section>
  )
}
