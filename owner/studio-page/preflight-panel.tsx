import { useCallback, useEffect, useState } from 'react'
import type { CheckLine } from '../../server/admin/sending'
import { send } from './api'
import { FOCUS } from './styles'

/** A run as owner/studio-server/studio-preflight.ts sends it; none yet is `checkedAt: null`. */
interface PreflightJson {
  checkedAt: string | null
  mailFrom: string | null
  passed: boolean
  lines: CheckLine[]
  senderConfigured: boolean
}

/** The last preflight the running server answered, whoever asked (owner/studio-server/studio-preflight.ts). */
const fetchPreflight = () => send<PreflightJson>('/api/preflight')
/** Asks the running server for one now, as `waitlist preflight` does; it may take the DNS's time-outs. */
const runPreflight = () => send<PreflightJson>('/api/preflight', { method: 'POST' })

const STATE: Record<CheckLine['status'], string> = {
  pass: 'passes',
  warn: 'warning',
  fail: 'fails',
  unchecked: 'could not check',
}

/** `2026-11-27 09:00:00 UTC`, as the studio shows every time. */
const when = (at: string) => `${at.slice(0, 19).replace('T', ' ')} UTC`

/**
 * The deliverability preflight (issue 66): when it last ran and whether it passed, each check with
 * the record read and what to publish instead, and "Check again". Read when it is shown (the
 * invite panel's preview, the Settings page), never with the studio's first page, and again when
 * `since` changes.
 */
export function PreflightPanel({ heading, since }: { heading: 'h2' | 'h4'; since?: unknown }) {
  const [shown, setShown] = useState<PreflightJson>()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const load = useCallback(async (read: () => Promise<PreflightJson>) => {
    setBusy(true)
    setError('')
    try {
      setShown(await read())
    } catch (reason) {
      setError(String((reason as Error).message ?? reason))
    } finally {
      setBusy(false)
    }
  }, [])
  // `since`: something that ran a preflight meanwhile (a batch's own check): read the last run again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a change of `since` is the reason to read
  useEffect(() => {
    void load(fetchPreflight)
  }, [load, since])
  const Heading = heading
  return (
    <section aria-labelledby={`preflight-${heading}`} className="space-y-2 rounded border border-line p-3">
      <Heading id={`preflight-${heading}`} className="font-semibold">
        Deliverability preflight
      </Heading>
      {shown && <LastRun run={shown} />}
      {shown && <PreflightLines lines={shown.lines} />}
      {error && (
        <p role="alert" className="rounded border border-danger bg-danger-soft p-3 text-danger">
          {error}
        </p>
      )}
      <button
        type="button"
        disabled={busy}
        onClick={() => void load(runPreflight)}
        className={`rounded border border-line px-3 py-1.5 disabled:opacity-60 ${FOCUS}`}
      >
        {busy && shown ? 'Checking…' : 'Check again'}
      </button>
    </section>
  )
}

/** "Last preflight: passed at …", or why there is none. */
function LastRun({ run }: { run: PreflightJson }) {
  if (run.checkedAt === null && run.lines.length === 0)
    return (
      <p className="text-sm">
        {run.senderConfigured
          ? 'No preflight has run yet.'
          : 'No server with SMTP_URL has started on this database: there is no sender to check yet.'}
      </p>
    )
  if (run.checkedAt === null) return <p className="text-sm">Last preflight: no answer.</p>
  return (
    <p className="text-sm">
      <span className={run.passed ? 'font-medium text-accent' : 'font-medium text-danger'}>
        Last preflight: {run.passed ? 'passed' : 'failed'} at {when(run.checkedAt)}
      </span>{' '}
      <span className="break-all text-soft">({run.mailFrom})</span>
    </p>
  )
}

/** One item a check: its name and state, what it says, the record read and what to publish. */
export function PreflightLines({ lines }: { lines: readonly CheckLine[] }) {
  if (lines.length === 0) return null
  return (
    <ul aria-label="Preflight checks" className="space-y-2 text-sm">
      {lines.map((line) => (
        <li key={`${line.check}|${line.says}`} className="[overflow-wrap:anywhere]">
          <strong>{line.check}</strong>{' '}
          <span className={line.status === 'pass' || line.status === 'warn' ? 'text-soft' : 'text-danger'}>
            {STATE[line.status]}
          </span>
          : {line.says}
          {line.read !== undefined && <DnsRecord label="Read" value={line.read} />}
          {line.publish !== undefined && <DnsRecord label="Publish" value={line.publish} />}
        </li>
      ))}
    </ul>
  )
}

function DnsRecord({ label, value }: { label: string; value: string }) {
  return (
    <div className="pl-4">
      <span className="text-soft">{label}:</span> <code className="break-all">{value}</code>
    </div>
  )
}
