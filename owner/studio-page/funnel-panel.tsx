import { useEffect, useState } from 'react'
import type { FunnelRow } from '../../server/waitlist/admin/funnel'
import type { Range } from './api'
import { type Funnel, type FunnelBy, fetchFunnel } from './choose-api'
import { RANGE_NAMES } from './sources-panel'
import { FOCUS } from './styles'

const number = (value: number) => value.toLocaleString('en-US')
const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`)

type Step = 'visits' | 'signups' | 'confirmed' | 'invited' | 'joined'
/** Each step's figure, and the step its rate is of. */
const STEPS: Record<FunnelBy, { step: Step; of?: string }[]> = {
  source: [
    { step: 'visits' },
    { step: 'signups', of: 'visits' },
    { step: 'confirmed', of: 'signups' },
    { step: 'invited', of: 'confirmed' },
    { step: 'joined', of: 'invited' },
  ],
  // A batch's entries had all signed up and confirmed: its steps are who it invited and who joined.
  batch: [{ step: 'invited' }, { step: 'joined', of: 'invited' }],
}

/** The funnel for the chart's range, by source or by batch; a fresh read when `version` changes. */
function useFunnel(by: FunnelBy, range: Range, version: number, fail: (reason: unknown) => void) {
  const [funnel, setFunnel] = useState<{ by: FunnelBy; funnel: Funnel }>()
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read after a change
  useEffect(() => {
    let current = true
    fetchFunnel(by, range).then((next) => current && setFunnel({ by, funnel: next }), fail)
    return () => {
      current = false
    }
  }, [by, range, version, fail])
  return funnel?.by === by ? funnel.funnel : undefined
}

/**
 * From the list to the beta (`funnel`): visits, signups, confirmed, invited and joined, each with
 * its rate of the step before, by source or by batch (one invite run). A list of rows, as the
 * sources above it: the addresses' list is the page's one table.
 */
export function FunnelPanel(props: { range: Range; version: number; onFail(reason: unknown): void }) {
  const [by, setBy] = useState<FunnelBy>('source')
  const funnel = useFunnel(by, props.range, props.version, props.onFail)
  return (
    <section aria-labelledby="funnel-heading" className="rounded-lg border border-line bg-panel p-4">
      <div className="flex flex-wrap items-baseline justify-between gap-3">
        <h2 id="funnel-heading" className="text-lg font-semibold">
          Funnel <span className="text-sm font-normal text-soft">({RANGE_NAMES[props.range]}, UTC)</span>
        </h2>
        <fieldset className="flex gap-1 text-sm">
          <legend className="sr-only">Show the funnel</legend>
          {(['source', 'batch'] as const).map((each) => (
            <button
              key={each}
              type="button"
              aria-pressed={by === each}
              onClick={() => setBy(each)}
              className={`rounded border border-line px-2 py-1 aria-pressed:border-accent aria-pressed:font-semibold ${FOCUS}`}
            >
              By {each}
            </button>
          ))}
        </fieldset>
      </div>
      <p className="mt-1 text-sm text-soft">
        Each rate is of the step before. Joined: the beta redeemed the invitation (redeem_invite).
      </p>
      {!funnel ? (
        <p className="mt-4 text-soft">Loading…</p>
      ) : funnel.rows.length === 0 ? (
        <p className="mt-4 text-soft">{by === 'batch' ? 'No invitations sent yet.' : 'No signups yet.'}</p>
      ) : (
        <FunnelRows by={by} funnel={funnel} />
      )}
    </section>
  )
}

const ROWS: Record<FunnelBy, string> = {
  source: 'grid grid-cols-5 gap-x-2 sm:grid-cols-[minmax(0,1fr)_repeat(5,6rem)]',
  batch: 'grid grid-cols-2 gap-x-2 sm:grid-cols-[minmax(0,1fr)_repeat(2,6rem)]',
}

function FunnelRows({ by, funnel }: { by: FunnelBy; funnel: Funnel }) {
  const steps = STEPS[by]
  return (
    <div className="mt-4 text-sm">
      <div aria-hidden="true" className={`${ROWS[by]} border-b border-line py-2 font-semibold max-sm:hidden`}>
        <span>{by === 'source' ? 'Source' : 'Batch'}</span>
        {steps.map(({ step }) => (
          <span key={step} className="text-right capitalize">
            {step}
          </span>
        ))}
      </div>
      <ul>
        {funnel.rows.map((row) => (
          <FunnelLine key={nameOf(row)} by={by} name={nameOf(row)} row={row} />
        ))}
        <FunnelLine by={by} name={by === 'source' ? 'All sources' : 'All batches'} row={funnel.total} total />
      </ul>
    </div>
  )
}

/** A source's name, or a batch's: when, by which tool, how it was chosen. */
function nameOf(row: FunnelRow): string {
  if (row.batch) {
    const { id, at, by, chosenBy } = row.batch
    return `#${id}, ${at.slice(0, 16).replace('T', ' ')}, ${by}${chosenBy ? `: ${chosenBy}` : ''}`
  }
  return row.source ?? 'none kept'
}

function FunnelLine(props: { by: FunnelBy; name: string; row: FunnelRow; total?: boolean }) {
  const { by, row } = props
  return (
    <li
      className={`${ROWS[by]} items-baseline border-b border-line py-2 ${props.total ? 'font-semibold' : ''}`}
    >
      <p
        className={`col-span-full [overflow-wrap:anywhere] sm:col-span-1 sm:pr-4 ${props.total ? '' : 'font-semibold'}`}
      >
        {props.name}
      </p>
      <dl className="contents">
        {STEPS[by].map(({ step, of }) => {
          const figure = row[step]
          const rate = of ? row.rates[step as Exclude<Step, 'visits'>] : undefined
          return (
            <div key={step} className="flex flex-col-reverse sm:block sm:text-right">
              <dt className="text-xs text-soft sm:sr-only">{step}</dt>
              <dd className="tabular-nums">
                {figure === undefined ? '–' : number(figure)}
                {of && (
                  <span className="block text-xs font-normal text-soft">
                    {percent(rate ?? null)}
                    <span className="sr-only"> of {of}</span>
                  </span>
                )}
              </dd>
            </div>
          )
        })}
      </dl>
    </li>
  )
}
