import { useCallback, useEffect, useState } from 'react'
import type { PausedNetwork, SendHealth } from '../../server/admin/sending'
import { send } from './api'
import { useMay } from './role'

const headings = { confirmations: 'Confirmations are paused', invitations: 'Invitations are paused' }

/**
 * While a lane is paused by bounces or complaints: which (confirmations, which strangers can cause,
 * are judged apart from the lab's invitations), why; and each signup network whose confirmations
 * wait, masked as the server's log masks it (ADR 083). A button resumes every pause.
 */
export function SendHealthBanner({
  version,
  onFail,
}: {
  version: number
  onFail: (reason: unknown) => void
}) {
  const [health, setHealth] = useState<SendHealth>()
  const mayResume = useMay('member')
  const load = useCallback(() => {
    send<SendHealth>('/api/send-health').then(setHealth, onFail)
  }, [onFail])
  useEffect(() => {
    void version
    load()
  }, [load, version])
  const paused = health
    ? [health.invitations, health.confirmations].flatMap((lane) =>
        lane.paused ? [{ name: lane.name, ...lane.paused }] : [],
      )
    : []
  const networks = health?.confirmations.pausedNetworks ?? []
  if (paused.length === 0 && networks.length === 0) return null
  const resume = () => send('/api/send-health/resume', { method: 'POST' }).then(load, onFail)
  return (
    <section
      role="alert"
      aria-labelledby="paused-heading"
      className="rounded-lg border border-danger bg-danger-soft p-4 text-danger"
    >
      {paused.map((lane, index) => (
        <div key={lane.name}>
          <h2 id={index === 0 ? 'paused-heading' : undefined} className="text-lg font-semibold">
            {headings[lane.name]}
          </h2>
          <p>
            Since {lane.at}: {lane.reason}. Queued {lane.name} wait; the other lane is judged apart. Find the
            cause first (docs/invitations.md).
          </p>
        </div>
      ))}
      {networks.length > 0 && <PausedNetworks networks={networks} headed={paused.length === 0} />}
      {mayResume && (
        <button type="button" onClick={resume} className="mt-2 rounded border border-line bg-panel px-3 py-1">
          Resume sending
        </button>
      )}
    </section>
  )
}

/** The signup networks whose confirmations wait, each until its pause ends by itself. */
function PausedNetworks({ networks, headed }: { networks: readonly PausedNetwork[]; headed: boolean }) {
  return (
    <div>
      <h2 id={headed ? 'paused-heading' : undefined} className="text-lg font-semibold">
        Confirmations from {networks.length === 1 ? 'one network wait' : `${networks.length} networks wait`}
      </h2>
      <ul>
        {networks.map((network) => (
          <li key={network.network}>
            {network.network}, until {network.until}: {network.reason}.
          </li>
        ))}
      </ul>
      <p>Other networks' confirmations go on; these go by themselves then.</p>
    </div>
  )
}
