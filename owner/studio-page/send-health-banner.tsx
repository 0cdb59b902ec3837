import { useCallback, useEffect, useState } from 'react'
import { send } from './api'

interface SendHealth {
  sent: number
  hardBounces: number
  complaints: number
  paused?: { at: string; reason: string }
}

/** While sending is paused by bounces or complaints: why, and a button that resumes it. */
export function SendHealthBanner({
  version,
  onFail,
}: {
  version: number
  onFail: (reason: unknown) => void
}) {
  const [health, setHealth] = useState<SendHealth>()
  const load = useCallback(() => {
    send<SendHealth>('/api/send-health').then(setHealth, onFail)
  }, [onFail])
  useEffect(() => {
    void version
    load()
  }, [load, version])
  if (!health?.paused) return null
  const resume = () => send('/api/send-health/resume', { method: 'POST' }).then(load, onFail)
  return (
    <section
      role="alert"
      aria-labelledby="paused-heading"
      className="rounded-lg border border-danger bg-danger-soft p-4 text-danger"
    >
      <h2 id="paused-heading" className="text-lg font-semibold">
        Sending is paused
      </h2>
      <p>
        Since {health.paused.at}: {health.paused.reason}. Queued mail waits. Find the cause first
        (docs/invitations.md).
      </p>
      <button type="button" onClick={resume} className="mt-2 rounded border border-line bg-panel px-3 py-1">
        Resume sending
      </button>
    </section>
  )
}
