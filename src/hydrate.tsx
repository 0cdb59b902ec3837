// Called by main.tsx, which the page loads right after its first paint.
import { startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { App } from './app'
import { announceOutcome } from './lib/announce-outcome'
import { outcomeFromRedirect } from './lib/native-submit-result'

/** Attaches React to the prerendered page. Exported, not run on import: the prerender imports this chunk too. */
export function hydrate() {
  const root = document.getElementById('root')
  if (!root) throw new Error('The prerendered page has no #root element')

  // As a transition, hydration yields to the browser every few milliseconds instead of holding the
  // main thread in one long task (React renders transitions in time slices).
  startTransition(() => {
    hydrateRoot(root, <App path={window.location.pathname} />)
  })

  // A form submitted before the script ran was answered by the server with a redirect that names
  // its outcome; show the same toast a hydrated submit would, then tidy the address bar.
  const redirected = outcomeFromRedirect(window.location)
  if (redirected) {
    announceOutcome(redirected.outcome)
    window.history.replaceState(null, '', redirected.cleanUrl)
  }
}
