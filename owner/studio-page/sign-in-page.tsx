import { browserSupportsWebAuthnAutofill, startAuthentication, WebAuthnError } from '@simplewebauthn/browser'
import { type FormEvent, useEffect, useState } from 'react'
import { siteConfig } from '../../contract/site-config'
import { studioReturn } from '../../contract/studio-return'
import { FOCUS } from './styles'
import { signInOptions, verifySignIn } from './team-api'

/** An aborted ceremony (the member closed the prompt, or the button replaced the autofill's): no error to show. */
const aborted = (error: unknown) =>
  (error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED') ||
  (error instanceof Error && (error.name === 'AbortError' || error.name === 'NotAllowedError'))

/**
 * Signs in with the passkey the browser returns, then opens the studio where the member was going
 * (`?next=`, the page and filters they opened signed out), checked to stay under /studio.
 */
async function signInWith(useBrowserAutofill: boolean): Promise<void> {
  const optionsJSON = await signInOptions()
  const response = await startAuthentication({ optionsJSON, useBrowserAutofill })
  await verifySignIn(response)
  window.location.assign(studioReturn(new URLSearchParams(window.location.search).get('next')))
}

/** Offers the passkey to the browser's autofill, where it has one, as soon as the page is shown. */
function useAutofillSignIn(setError: (error: string) => void) {
  useEffect(() => {
    let current = true
    browserSupportsWebAuthnAutofill().then((supported) => {
      if (supported && current)
        signInWith(true).catch(
          (reason) => current && !aborted(reason) && setError(String((reason as Error).message)),
        )
    })
    return () => {
      current = false
    }
  }, [setError])
}

/**
 * The team studio's sign-in: a passkey, and nothing else (no password, anywhere). The browser may
 * offer the passkey in the address field's autofill (conditional UI); the button asks for it
 * outright. The passkey is discoverable: it says whose it is.
 */
export function SignInPage() {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  useAutofillSignIn(setError)
  async function submit(event: FormEvent) {
    event.preventDefault()
    setBusy(true)
    setError('')
    try {
      await signInWith(false)
    } catch (reason) {
      if (!aborted(reason)) setError(String((reason as Error).message ?? reason))
      setBusy(false)
    }
  }

  return (
    <main className="mx-auto max-w-md space-y-6 p-6">
      <h1 className="text-2xl font-bold">{siteConfig.labName} studio</h1>
      <form onSubmit={submit} className="space-y-4 rounded-lg border border-line bg-panel p-4">
        <h2 className="text-lg font-semibold">Sign in with your passkey</h2>
        <p className="text-soft">
          The team studio has no passwords. Your browser or phone holds your passkey; an owner's enrolment
          link made it.
        </p>
        <div>
          <label htmlFor="username" className="block text-sm font-medium">
            Your address
          </label>
          <input
            id="username"
            name="username"
            type="email"
            autoComplete="username webauthn"
            aria-describedby="username-note"
            className={`mt-1 w-full rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
          />
          <p id="username-note" className="mt-1 text-sm text-soft">
            Optional: your browser may offer your passkey here.
          </p>
        </div>
        <button
          type="submit"
          disabled={busy}
          className={`rounded bg-button px-3 py-2 font-medium text-button-ink disabled:opacity-60 ${FOCUS}`}
        >
          Sign in with a passkey
        </button>
        {error && (
          <p role="alert" className="rounded border border-danger bg-danger-soft p-3 text-danger">
            {error}
          </p>
        )}
      </form>
      <p className="text-sm text-soft">
        No passkey yet, or a lost device? Ask an owner for an enrolment link.
      </p>
    </main>
  )
}
