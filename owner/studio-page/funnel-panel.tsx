import { useEffect, useState } from 'react'
import {
  DEFAULT_FUNNEL_WINDOW,
  FUNNEL_WINDOWS,
  type FunnelWindow,
  funnelWindowName,
} from '../../contract/funnel-windows'
import type { FunnelRow } from '../../server/admin/funnel'
import { type Funnel, type FunnelBy, fetchFunnel } from './choose-api'
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
  // A batch's people had all signed up and confirmed: its steps are who it invited and who joined.
  batch: [{ step: 'invited' }, { step: 'joined', of: 'invited' }],
  // An agent's people: its signups, and each step of them (no visit is an agent's).
  agent: [
    { step: 'signups' },
    { step: 'confirmed', of: 'signups' },
    { step: 'invited', of: 'confirmed' },
    { step: 'joined', of: 'invited' },
  ],
}

const WINDOW_LABELS: Record<FunnelWindow, string> = {
  '30': 'the last 30 days',
  '90': 'the last 90 days',
  all: 'the whole list',
}

/** The funnel for a window, by source or by batch; a fresh read when `version` changes. */
function useFunnel(by: FunnelBy, days: FunnelWindow, version: number, fail: (reason: unknown) => void) {
  const [funnel, setFunnel] = useState<{ by: FunnelBy; days: FunnelWindow; funnel: Funnel }>()
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read after a change
  useEffect(() => {
    let current = true
    fetchFunnel(by, days).then((next) => current && setFunnel({ by, days, funnel: next }), fail)
    return () => {
      current = false
    }
  }, [by, days, version, fail])
  return funnel?.by === by && funnel.days === days ? funnel.funnel : undefined
}

/** A row of pressed-or-not buttons: one choice of a few. */
function Choice<T extends string>(props: {
  legend: string
  options: readonly T[]
  chosen: T
  label(option: T): string
  onChoose(option: T): void
}) {
  return (
    <fieldset className="flex gap-1 text-sm">
      <legend className="sr-only">{props.legend}</legend>
      {props.options.map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={props.chosen === option}
          onClick={() => props.onChoose(option)}
          className={`rounded border border-line px-2 py-1 aria-pressed:border-accent aria-pressed:font-semibold ${FOCUS}`}
        >
          {props.label(option)}
        </button>
      ))}
    </fieldset>
  )
}

/**
 * The funnel's window, `funnel --days`'s: a list box of its own, apart from the chart's day buttons
 * above it, which cover the chart and the sources alone.
 */
function WindowChoice(props: { days: FunnelWindow; onChoose(days: FunnelWindow): void }) {
  return (
    <label className="flex items-baseline gap-2 text-sm">
      Window
      <select
        value={props.days}
        onChange={(event) => props.onChoose(event.target.value as FunnelWindow)}
        className={`rounded border border-line bg-panel px-2 py-1 ${FOCUS}`}
      >
        {FUNNEL_WINDOWS.map((option) => (
          <option key={option} value={option}>
            {WINDOW_LABELS[option]}
          </option>
        ))}
      </select>
    </label>
  )
}

/**
 * From the list to the beta (`funnel`): visits, signups, confirmed, invited and joined, each person
 * once, each with its rate of the step before, by source or by batch (one invite run), over the
 * CLI's windows and opening, as `funnel` does, on the whole list. A list of rows, as the sources
 * above it: the addresses' list is the page's one table.
 */
export function FunnelPanel(props: { version: number; onFail(reason: unknown): void }) {
  const [by, setBy] = useState<FunnelBy>('source')
  const [days, setDays] = useState<FunnelWindow>(DEFAULT_FUNNEL_WINDOW)
  const funnel = useFunnel(by, days, props.version, props.onFail)
  return (
    <section aria-labelledby="funnel-heading" className="rounded-lg border border-line bg-panel p-4">
      <div className="flex flex-wrap items-baseline justify-between gap-3">
        <h2 id="funnel-heading" className="text-lg font-semibold">
          Funnel <span className="text-sm font-normal text-soft">({funnelWindowName(days)}, UTC)</span>
        </h2>
        <div className="flex flex-wrap gap-3">
          <WindowChoice days={days} onChoose={setDays} />
          <Choice<FunnelBy>
            legend="Show the funnel"
            options={['source', 'batch', 'agent'] as const}
            chosen={by}
            label={(option) => `By ${option}`}
            onChoose={setBy}
          />
        </div>
      </div>
      <p className="mt-1 text-sm text-soft">
        {by === 'source'
          ? 'Each person once; each rate is of the step before. The signups’ rate is the conversion, signups per visit, as in Sources; it is of visits only where made on a counted page visit; no visit counted: the API, agents, imports.'
          : by === 'agent'
            ? 'Each person once, by the agent that made the signup: a verified agent (its Web Bot Auth signature held) apart from names a program only declared.'
            : 'Each person once, in the batch whose invitation they redeemed, else their latest; still counted once erased, as the record counts the batch. Joined: the beta redeemed the invitation (redeem_invite).'}
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
  agent: 'grid grid-cols-4 gap-x-2 sm:grid-cols-[minmax(0,1fr)_repeat(4,6rem)]',
}

function FunnelRows({ by, funnel }: { by: FunnelBy; funnel: Funnel }) {
  const steps = STEPS[by]
  return (
    <div className="mt-4 text-sm">
      <div aria-hidden="true" className={`${ROWS[by]} border-b border-line py-2 font-semibold max-sm:hidden`}>
        <span>{HEADINGS[by].name}</span>
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
        <FunnelLine by={by} name={HEADINGS[by].all} row={funnel.total} total />
      </ul>
    </div>
  )
}

/** A source's name, the row of signups with no counted visit, or a batch's: when, by which tool, how chosen. */
const HEADINGS: Record<FunnelBy, { name: string; all: string }> = {
  source: { name: 'Source', all: 'All sources' },
  batch: { name: 'Batch', all: 'All batches' },
  agent: { name: 'Agent', all: 'All signups' },
}

function nameOf(row: FunnelRow): string {
  if (row.agent)
    return row.agent.name === null
      ? 'no agent'
      : `${row.agent.name}${row.agent.verified ? ' (verified)' : ''}`
  if (row.batch) {
    const { id, at, by, chosenBy, erased } = row.batch
    const since = erased > 0 ? ` (${number(erased)} erased since)` : ''
    return `#${id}, ${at.slice(0, 16).replace('T', ' ')}, ${by}${chosenBy ? `: ${chosenBy}` : ''}${since}`
  }
  return row.kind === 'no-visit' ? 'no visit counted' : (row.source ?? '')
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
