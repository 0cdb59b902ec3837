import { useCallback, useEffect, useRef, useState } from 'react'
import {
  downloadExport,
  EXPORT_URL,
  fetchSummary,
  type Range,
  removeAddress,
  SiteStopped,
  type Summary,
} from './api'
import { BackupLine } from './backup-line'
import { EntryPanel } from './entry-panel'
import { FunnelPanel } from './funnel-panel'
import { ListSection } from './list-section'
import { RemoveDialog } from './remove-dialog'
import { useMay } from './role'
import { SendHealthBanner } from './send-health-banner'
import { SignupsChart } from './signups-chart'
import { SourcesPanel, useSources } from './sources-panel'
import { FOCUS } from './styles'

type Fail = (reason: unknown) => void

/**
 * The whole studio: the total, the chart, the sources and the funnel, and the table of people
 * with its search, filters and order, "Invite the next N" of what they match, the rows to invite
 * or tag, paging, CSV, and each entry's panel with its note and Remove.
 */
export function StudioPage() {
  const [range, setRange] = useState<Range>('30')
  const { error, setError, stopped, fail, version, refresh } = useStudioState()
  const summary = useSummary(range, version, fail, setError)
  const sources = useSources(range, version, fail)
  const [shown, setShown] = useState<string>()
  // Removed from its panel: the panel closes with the dialog, and focus goes back to the list.
  const removal = useRemoval(fail, () => {
    setShown(undefined)
    refresh()
  })

  return (
    <main className="mx-auto max-w-7xl space-y-6 p-4 sm:p-6">
      <StudioHeader total={summary?.total} onFail={fail} />
      <StudioNotices stopped={stopped} error={error} removed={removal.status} />

      {summary && (
        <SignupsChart days={summary.days} visits={sources?.days} range={range} onRangeChange={setRange} />
      )}
      <SourcesPanel sources={sources?.sources} agents={sources?.agents} range={range} />
      <FunnelPanel version={version} onFail={fail} />

      <SendHealthBanner version={version} onFail={fail} />

      <ListSection
        summary={summary}
        version={version}
        onFail={fail}
        heading={removal.listHeading}
        onOpen={setShown}
        onChanged={refresh}
      />

      <EntryPanel
        email={shown}
        version={version}
        onClose={() => setShown(undefined)}
        onRemove={removal.setPending}
        onChanged={refresh}
      />

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
 * What every panel shares: the last error, whether the site is stopped (the page then reconnects
 * by itself), and the version that asks every panel to read afresh after a change.
 */
function useStudioState() {
  const [error, setError] = useState('')
  const [stopped, setStopped] = useState('')
  const [version, setVersion] = useState(0)
  const fail = useCallback((reason: unknown) => {
    if (reason instanceof SiteStopped) setStopped(reason.message)
    else setError(String((reason as Error).message ?? reason))
  }, [])
  const refresh = useCallback(() => setVersion((value) => value + 1), [])
  useReconnect(stopped, () => {
    setStopped('')
    setError('')
    refresh() // everything read afresh
  })
  return { error, setError, stopped, fail, version, refresh }
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
        <BackupLine />
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
