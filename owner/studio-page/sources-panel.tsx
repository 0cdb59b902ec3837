import { useEffect, useState } from 'react'
import type { Range } from './api'
import {
  agentTotals,
  fetchSources,
  type SourceAgentSignups,
  type SourceCounts,
  type SourcesSummary,
} from './sources-api'

export const RANGE_NAMES: Record<Range, string> = {
  '30': 'the last 30 days',
  '90': 'the last 90 days',
  all: 'all days',
}

const number = (value: number) => value.toLocaleString('en')
const percent = (conversion: number | null) =>
  conversion === null ? '–' : `${(conversion * 100).toFixed(1)}%`

/** The sources and the chart's visits for the range; a fresh read when `version` changes. */
export function useSources(range: Range, version: number, fail: (reason: unknown) => void) {
  const [summary, setSummary] = useState<SourcesSummary>()
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read after a removal
  useEffect(() => {
    let current = true
    fetchSources(range).then((next) => current && setSummary(next), fail)
    return () => {
      current = false
    }
  }, [range, version, fail])
  return summary
}

/**
 * Visits, visitors, signups and conversion per source, most signups first, each source's media and
 * campaigns beneath it; then the signups agents made, as the CLI's `sources` lists them. On a phone
 * each row is a small card: the source over its four figures.
 */
export function SourcesPanel(props: {
  sources: SourceCounts[] | undefined
  agents: SourceAgentSignups[] | undefined
  range: Range
}) {
  const { sources, agents, range } = props
  return (
    <section
      id="sources"
      aria-labelledby="sources-heading"
      className="rounded-lg border border-line bg-panel p-4"
    >
      <h2 id="sources-heading" className="text-lg font-semibold">
        Sources <span className="text-sm font-normal text-soft">({RANGE_NAMES[range]}, UTC)</span>
      </h2>
      <p className="mt-1 text-sm text-soft">
        Counted by the server, with no cookie: a visitor is one address and browser a day; a signup counts
        under the utm_source of the page it was made on, else direct. (api) and mcp are signups with no
        counted page visit (scripts, API calls, headless browsers; agents), so they have no conversion.
        Conversion: signups per visit, as the funnel gives it.
      </p>
      {!sources ? (
        <p className="mt-4 text-soft">Loading…</p>
      ) : sources.length === 0 ? (
        <p className="mt-4 text-soft">No visits or signups counted yet.</p>
      ) : (
        <SourcesTable sources={sources} />
      )}
      {agents && agents.length > 0 && <AgentSignupsList agents={agents} />}
    </section>
  )
}

/**
 * The signups agents made, summed over sources: a verified agent (its Web Bot Auth signature held)
 * apart from a program that only declared the same name, as `sources` and the funnel count them.
 */
function AgentSignupsList({ agents }: { agents: SourceAgentSignups[] }) {
  return (
    <div className="mt-4 text-sm">
      <h3 id="agent-signups-heading" className="font-semibold">
        Signups by agent
      </h3>
      <p className="mt-1 text-soft">
        (verified): its Web Bot Auth signature held, from an agent SIGNATURE_AGENTS lists; the others are
        named by the program, not verified.
      </p>
      <ul aria-labelledby="agent-signups-heading" className="mt-2">
        {agentTotals(agents).map(({ agent, verified, signups }) => (
          <li
            key={`${verified}\n${agent}`}
            className="flex justify-between gap-4 border-b border-line py-2 [overflow-wrap:anywhere]"
          >
            <span>
              {agent}
              {verified && ' (verified)'}
            </span>
            <span className="tabular-nums">
              {number(signups)} <span className="sr-only">signups</span>
            </span>
          </li>
        ))}
      </ul>
    </div>
  )
}

const HEADINGS = ['Visits', 'Visitors', 'Signups', 'Conversion']
// Wide: the source, then four columns of figures. A phone: the source over its four figures.
const ROW = 'grid grid-cols-4 gap-x-2 sm:grid-cols-[minmax(0,1fr)_repeat(4,6.5rem)]'

/**
 * A list of sources, each with its figures as a description list (not a table: the studio's list of
 * addresses is the page's one table). The column headings are for the eye; each figure names itself.
 */
function SourcesTable({ sources }: { sources: SourceCounts[] }) {
  return (
    <div className="mt-4 text-sm">
      <div aria-hidden="true" className={`${ROW} border-b border-line py-2 font-semibold max-sm:hidden`}>
        <span>Source</span>
        {HEADINGS.map((heading) => (
          <span key={heading} className="text-right">
            {heading}
          </span>
        ))}
      </div>
      <ul>
        {sources.flatMap((source) => {
          const [only, ...more] = source.campaigns
          // One medium and campaign: named under the source. Several: a row each, beneath it.
          const tag = more.length === 0 && only && isTagged(only) ? tagName(only) : undefined
          const rows = more.length > 0 ? source.campaigns : []
          return [
            <CountsRow key={source.source} name={source.source} tag={tag} counts={source} />,
            ...rows.map((row) => (
              <CountsRow
                key={`${source.source}\n${row.medium}\n${row.campaign}`}
                name={tagName(row)}
                counts={row}
                nested
              />
            )),
          ]
        })}
      </ul>
    </div>
  )
}

type Counts = Pick<SourceCounts, 'visits' | 'visitors' | 'signups' | 'conversion'>
type Campaign = SourceCounts['campaigns'][number]

const isTagged = (row: Campaign) => row.medium !== '' || row.campaign !== ''
const tagName = (row: Campaign) =>
  isTagged(row) ? [row.medium, row.campaign].filter((part) => part !== '').join(' · ') : 'untagged'

function CountsRow(props: { name: string; tag?: string; counts: Counts; nested?: boolean }) {
  const { name, tag, counts, nested = false } = props
  const figures = [
    number(counts.visits),
    number(counts.visitors),
    number(counts.signups),
    percent(counts.conversion),
  ]
  return (
    <li className={`${ROW} items-baseline border-b border-line py-2`}>
      <p
        className={`col-span-4 [overflow-wrap:anywhere] sm:col-span-1 sm:pr-4 ${nested ? 'pl-4 text-soft' : 'font-semibold'}`}
      >
        {nested && <span className="sr-only">medium and campaign: </span>}
        {name}
        {tag && (
          <span className="block text-xs font-normal text-soft">
            <span className="sr-only">medium and campaign: </span>
            {tag}
          </span>
        )}
      </p>
      <dl className="contents">
        {figures.map((figure, index) => (
          <div key={HEADINGS[index]} className="flex flex-col-reverse sm:block sm:text-right">
            <dt className="text-xs text-soft sm:sr-only">{HEADINGS[index]?.toLowerCase()}</dt>
            <dd className="tabular-nums">{figure}</dd>
          </div>
        ))}
      </dl>
    </li>
  )
}
