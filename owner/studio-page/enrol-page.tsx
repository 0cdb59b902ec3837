import { startRegistration, WebAuthnError } from '@simplewebauthn/browser'
import { type FormEvent, useEffect, useState } from 'react'
import { siteConfig } from '../../contract/site-config'
import { STUDIO_ROOT } from './api'
import { FOCUS } from './styles'
import { enrolOptions, type Me, verifyEnrolment } from './team-api'

/** The link's token, from its fragment (which no request carries), taken out of the address bar. */
function takeToken(): string {
  const token = window.location.hash.slice(1)
  if (token) history.replaceState(null, '', window.location.pathname)
  return token
}

/** The link's member (or why it no longer works), and the passkey's creation. */
function useEnrolment(name: string) {
  const [token] = useState(takeToken)
  const [member, setMember] = useState<Me>()
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (!token) setError('This page needs the whole enrolment link, as the owner sent it.')
    else enrolOptions(token).then(setMember, (reason: Error) => setError(reason.message))
  }, [token])

  async function create(event: FormEvent) {
    event.preventDefault()
    setBusy(true)
    setError('')
    try {
      // A fresh challenge: the first may have expired while the page was open.
      const { options } = await enrolOptions(token)
      const response = await startRegistration({ optionsJSON: options })
      await verifyEnrolment(token, name, response)
      window.location.assign(`${STUDIO_ROOT}/`)
    } catch (reason) {
      const cancelled = reason instanceof WebAuthnError && reason.code === 'ERROR_CEREMONY_ABORTED'
      setError(cancelled ? 'No passkey was made. Try again.' : String((reason as Error).message ?? reason))
      setBusy(false)
    }
  }

  return { member, error, busy, create }
}

/**
 * An enrolment link's page (`team add`, `team link`): who it is for, then "Create a passkey", which
 * registers a discoverable passkey on this device and signs the member in. The link works once.
 */
export function EnrolPage() {
  const [name, setName] = useState('')
  const { member, error, busy, create } = useEnrolment(name)

  return (
    <main className="mx-auto max-w-md space-y-6 p-6">
      <h1 className="text-2xl font-bold">{siteConfig.labName} studio</h1>
      <form onSubmit={create} className="space-y-4 rounded-lg border border-line bg-panel p-4">
        <h2 className="text-lg font-semibold">Join the team</h2>
        {member && (
          <p>
            This link is for <strong>{member.email}</strong>, as {member.role === 'owner' ? 'an' : 'a'}{' '}
            {member.role}. Create a passkey on this device: your browser or phone keeps it, and signs you in
            with it. There is no password.
          </p>
        )}
        <div>
          <label htmlFor="passkey-name" className="block text-sm font-medium">
            Name this passkey (optional)
          </label>
          <input
            id="passkey-name"
            value={name}
            maxLength={60}
            placeholder="Work laptop"
            onChange={(event) => setName(event.target.value)}
            className={`mt-1 w-full rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
          />
        </div>
        <button
          type="submit"
          disabled={busy || !member}
          className={`rounded bg-button px-3 py-2 font-medium text-button-ink disabled:opacity-60 ${FOCUS}`}
        >
          Create a passkey
        </button>
        {error && (
          <p role="alert" className="rounded border border-danger bg-danger-soft p-3 text-danger">
            {error}
          </p>
        )}
      </form>
    </main>
  )
}
