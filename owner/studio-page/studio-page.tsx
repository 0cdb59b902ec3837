import { type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { AnswerFilters } from './answer-filters'
import {
  downloadExport,
  type EntryPage,
  EXPORT_URL,
  fetchEntries,
  fetchSummary,
  type PageStart,
  type Range,
  removeAddress,
  SiteStopped,
  type Summary,
} from './api'
import { EntriesTable, type Selection } from './entries-table'
import { EntryPanel } from './entry-panel'
import { type Filters, isFiltered, useUrlFilters } from './filters'
import { FunnelPanel } from './funnel-panel'
import { InvitePanel } from './invite-panel'
import { InviteSelected } from './invite-selected'
import { RemoveDialog } from './remove-dialog'
import { useMay } from './role'
import { SendHealthBanner } from './send-health-banner'
import { SignupsChart } from './signups-chart'
import { SourcesPanel, useSources } from './sources-panel'
import { StatusFilter } from './status-filter'
import { FOCUS } from './styles'

type Fail = (reason: unknown) => void

/** Where the list is: where its page starts, and that page's number as the owner has counted it. */
interface Position {
  start: PageStart
  number: number
}

const FIRST_PAGE: Position = { start: {}, number: 1 }

/**
 * The whole studio: the total, the chart, the sources and the funnel, "Invite the next N", and the
 * list with its search and filters, paging, CSV, the rows to invite, each entry's panel and remove.
 */
export function StudioPage() {
  const [range, setRange] = useState<Range>('30')
  const [error, setError] = useState('')
  const [stopped, setStopped] = useState('')
  const [version, setVersion] = useState(0)

  const fail = useCallback((reason: unknown) => {
    if (reason instanceof SiteStopped) setStopped(reason.message)
    else setError(String((reason as Error).message ?? reason))
  }, [])
  useReconnect(stopped, () => {
    setStopped('')
    setError('')
    setVersion((value) => value + 1) // everything read afresh
  })
  const summary = useSummary(range, version, fail, setError)
  const sources = useSources(range, version, fail)
  const refresh = useCallback(() => setVersion((value) => value + 1), [])
  const removal = useRemoval(fail, refresh)
  const [shown, setShown] = useState<string>()
  const mayInvite = useMay('member')

  return (
    <main className="mx-auto max-w-4xl space-y-6 p-6">
      <StudioHeader total={summary?.total} onFail={fail} />
      <StudioNotices stopped={stopped} error={error} removed={removal.status} />

      {summary && (
        <SignupsChart days={summary.days} visits={sources?.days} range={range} onRangeChange={setRange} />
      )}
      <SourcesPanel sources={sources?.sources} range={range} />
      <FunnelPanel version={version} onFail={fail} />

      <SendHealthBanner version={version} onFail={fail} />
      {mayInvite && <InvitePanel onQueued={refresh} />}

      <ListSection
        summary={summary}
        version={version}
        onFail={fail}
        heading={removal.listHeading}
        onRemove={removal.setPending}
        onOpen={setShown}
        onQueued={refresh}
      />

      <EntryPanel email={shown} onClose={() => setShown(undefined)} />

      <RemoveDialog
        email={removal.pending}
        busy={removal.busy}
        onConfirm={removal.confirm}
        onCancel={() => removal.setPending(undefined)}
      />
    </main>
  )
}

/**
 * The list, newest first: its search, its filters (each status with its count, the sources, the
 * answers; kept in the page's address), the rows ticked to invite, its pages.
 */
function ListSection(props: {
  summary: Summary | undefined
  version: number
  onFail: Fail
  heading: RefObject<HTMLHeadingElement | null>
  onRemove(email: string): void
  onOpen(email: string): void
  onQueued(): void
}) {
  const { summary } = props
  const [search, setSearch] = useState('')
  const [query, setQuery] = useState('')
  const [filters, setFilters] = useUrlFilters()
  const [position, setPosition] = useState<Position>(FIRST_PAGE)
  const selection = useSelection()
  const entries = useEntries({ query, filters }, position.start, props.version, props.onFail)
  useSearchSettling(search, query, setQuery, setPosition)
  const filter = useCallback(
    (next: Filters) => {
      setFilters(next)
      setPosition(FIRST_PAGE)
    },
    [setFilters],
  )
  const onPage = useMemo(() => entries?.entries.map((entry) => entry.email) ?? [], [entries])
  const mayInvite = useMay('member')
  return (
    <section aria-labelledby="list-heading" className="rounded-lg border border-line bg-panel p-4">
      <h2 id="list-heading" ref={props.heading} tabIndex={-1} className="text-lg font-semibold">
        Signups, newest first
      </h2>
      <SearchBox value={search} onChange={setSearch} />
      <StatusFilter
        counts={summary?.statuses}
        selected={filters.statuses}
        onChange={(statuses) => filter({ ...filters, statuses })}
      />
      <AnswerFilters
        {...{ filters, sources: summary?.sources, moreSources: summary?.moreSources ?? false }}
        onChange={filter}
      />
      {mayInvite && (
        <InviteSelected
          {...{ selected: selection.list, onPage, onClear: selection.clear, onQueued: props.onQueued }}
          onSelectPage={(on) => selection.setMany(onPage, on)}
        />
      )}
      <EntriesTable
        {...{ page: entries, number: position.number, searching: query !== '' || isFiltered(filters) }}
        noMatch={noMatch(query, filters)}
        onPage={(start, number) => setPosition({ start, number })}
        {...{ onRemove: props.onRemove, onOpen: props.onOpen, selection }}
      />
    </section>
  )
}

/** What an empty page says while searching or filtering. */
function noMatch(query: string, filters: Filters): string {
  if (query !== '') return 'No address matches the search.'
  const onlyStatuses = filters.sources.length + filters.answers.length === 0
  return onlyStatuses ? 'No entry has the statuses ticked.' : 'No entry matches the filters.'
}

/**
 * The addresses ticked for "Invite selected", in the order ticked: kept across pages, searches and
 * filters, so a cohort can be gathered from several.
 */
function useSelection(): Selection & {
  list: string[]
  setMany(emails: readonly string[], on: boolean): void
  clear(): void
} {
  const [list, setList] = useState<string[]>([])
  const setMany = useCallback((emails: readonly string[], on: boolean) => {
    setList((current) => {
      const rest = current.filter((email) => !emails.includes(email))
      return on ? [...rest, ...emails] : rest
    })
  }, [])
  return {
    list,
    has: (email) => list.includes(email),
    toggle: (email, on) => setMany([email], on),
    setMany,
    clear: useCallback(() => setList([]), []),
  }
}

/** The site stopped (not an error: the page comes back with the server), an error, a removal done. */
function StudioNotices({ stopped, error, removed }: { stopped: string; error: string; removed: string }) {
  return (
    <>
      <p aria-live="polite" className={stopped ? 'rounded border border-line p-3' : 'sr-only'}>
        {stopped}
      </p>
      {error && !stopped && (
        <p role="alert" className="rounded border border-danger bg-danger-soft p-3 text-danger">
          {error}
        </p>
      )}
      <p role="status" className={removed ? 'text-accent' : 'sr-only'}>
        {removed}
      </p>
    </>
  )
}

const RECONNECT_MS = 2000

/** While the site is stopped, asks every 2 s whether it is back, then calls onBack once. */
function useReconnect(stopped: string, onBack: () => void) {
  const back = useRef(onBack)
  back.current = onBack
  useEffect(() => {
    if (!stopped) return
    const timer = setInterval(() => {
      fetchSummary('30').then(
        () => back.current(),
        () => {},
      ) // still stopped, or not yet ready
    }, RECONNECT_MS)
    return () => clearInterval(timer)
  }, [stopped])
}

/** The total and the chart's days for the range; a fresh read when `version` changes (after a removal). */
function useSummary(range: Range, version: number, fail: Fail, setError: (error: string) => void) {
  const [summary, setSummary] = useState<Summary>()
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read after a removal
  useEffect(() => {
    let current = true
    fetchSummary(range).then((next) => {
      if (!current) return // a later range was asked for meanwhile
      setSummary(next)
      setError('')
    }, fail)
    return () => {
      current = false
    }
  }, [range, version, fail])
  return summary
}

/** The page of the list that the search and the filters ask for, from where it starts. */
function useEntries(
  matching: { query: string; filters: Filters },
  start: PageStart,
  version: number,
  fail: Fail,
) {
  const [entries, setEntries] = useState<EntryPage>()
  const { query, filters } = matching
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read after a removal
  useEffect(() => {
    let current = true
    // An answer for a page or search left behind meanwhile must not replace the newer one.
    fetchEntries(query, filters, start).then((next) => current && setEntries(next), fail)
    return () => {
      current = false
    }
  }, [query, filters, start, version, fail])
  return entries
}

/**
 * The list follows the search box a moment after typing stops; only a new search goes back to
 * page 1 (not the first render, which would undo a quick click on Next).
 */
function useSearchSettling(
  search: string,
  query: string,
  setQuery: (query: string) => void,
  setPosition: (position: Position) => void,
) {
  useEffect(() => {
    const next = search.trim()
    if (next === query) return
    const timer = setTimeout(() => {
      setQuery(next)
      setPosition(FIRST_PAGE)
    }, 250)
    return () => clearTimeout(timer)
  }, [search, query, setQuery, setPosition])
}

/** The address asked to be removed, the confirmation, and where focus goes afterwards. */
function useRemoval(fail: Fail, refresh: () => void) {
  const [pending, setPending] = useState<string>()
  const [busy, setBusy] = useState(false)
  const [status, setStatus] = useState('')
  const [focusList, setFocusList] = useState(false)
  const listHeading = useRef<HTMLHeadingElement>(null)

  // The removed row and its button are gone: focus goes back to the list. An effect, so it runs
  // after the dialog's own effect has closed it (a modal dialog keeps focus inside while open).
  useEffect(() => {
    if (!focusList) return
    listHeading.current?.focus()
    setFocusList(false)
  }, [focusList])

  async function confirm() {
    if (!pending) return
    setBusy(true)
    try {
      const removed = await removeAddress(pending)
      setStatus(removed ? `Removed ${pending}.` : `${pending} was no longer on the list.`)
      setPending(undefined)
      refresh()
      setFocusList(true)
    } catch (reason) {
      fail(reason)
    } finally {
      setBusy(false)
    }
  }

  return { pending, setPending, busy, status, listHeading, confirm }
}

function StudioHeader({ total, onFail }: { total: number | undefined; onFail: Fail }) {
  const mayExport = useMay('owner')
  return (
    <header className="flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-bold">Waitlist studio</h1>
        <p className="mt-1 text-soft">
          <span className="text-3xl font-semibold tabular-nums">{total?.toLocaleString('en-US') ?? '…'}</span>{' '}
          {total === 1 ? 'address' : 'addresses'} on the waitlist
        </p>
      </div>
      {mayExport && (
        <a
          href={EXPORT_URL}
          download="waitlist.csv"
          onClick={(event) => {
            event.preventDefault() // the link alone would go without the token
            downloadExport().catch(onFail)
          }}
          className={`rounded bg-button px-3 py-2 text-sm font-medium text-button-ink ${FOCUS}`}
        >
          Download CSV
        </a>
      )}
    </header>
  )
}

function SearchBox({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <div className="mt-3">
      <label htmlFor="search" className="block text-sm font-medium">
        Search addresses
      </label>
      <input
        id="search"
        type="search"
        value={value}
        aria-describedby="search-rule"
        onChange={(event) => onChange(event.target.value)}
        className={`mt-1 w-full rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
      />
      {/* The rule of server/waitlist/admin/email-search.ts, said where the owner types. */}
      <p id="search-rule" className="mt-1 text-sm text-soft">
        One or two characters find addresses or domains that start with them; more find them anywhere.
      </p>
    </div>
  )
}
