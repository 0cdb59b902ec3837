import { useCallback, useEffect, useState } from 'react'
import { FOCUS } from './styles'
import { endSession, fetchSessions, type SessionInfo } from './team-api'

const BUTTON = `rounded border border-line px-3 py-1 ${FOCUS}`

/**
 * Where the member is signed in: each of their own sessions (device, network, last seen, the
 * passkey that made it), this browser's marked, and an end for any of them: a device left signed
 * in elsewhere, or lost. The passkeys page gives it a new key when a passkey goes (its sessions
 * went with it), so it reads them again.
 */
export function SessionsList(props: { onSaid(words: string): void; onFail(reason: unknown): void }) {
  const { onSaid, onFail } = props
  const [sessions, setSessions] = useState<SessionInfo[]>()
  const load = useCallback(() => fetchSessions().then((read) => setSessions(read.sessions), onFail), [onFail])
  useEffect(() => {
    load()
  }, [load])

  const end = (session: SessionInfo) =>
    endSession(session.id).then(() => {
      onSaid(session.current ? 'Signed out here.' : `Ended the session on ${session.device}.`)
      load()
    }, onFail)

  return (
    <section aria-labelledby="sessions-heading" className="space-y-3 border-t border-line pt-4">
      <h2 id="sessions-heading" className="text-xl font-bold">
        Where you are signed in
      </h2>
      <ul className="space-y-3">
        {sessions?.map((session) => (
          <li key={session.id} className="flex flex-wrap items-end gap-2 border-b border-line pb-3">
            <p className="w-full font-medium">
              {session.device}
              {session.current ? ' (this browser)' : ''}
            </p>
            <p className="w-full text-sm text-soft">
              Last seen {session.lastSeenAt} UTC from {session.network || 'an unknown network'}; signed in{' '}
              {session.signedInAt} UTC with {session.passkey}
            </p>
            <button
              type="button"
              className={BUTTON}
              aria-label={
                session.current
                  ? "End this browser's session (signs you out)"
                  : `End the session on ${session.device}, last seen ${session.lastSeenAt} UTC`
              }
              onClick={() => end(session)}
            >
              End
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
