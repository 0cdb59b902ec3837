// Called by main.tsx, which the page loads right after its first paint.
import { startTransition } from 'react'
import { createRoot, hydrateRoot } from 'react-dom/client'
import { NO_SCRIPT_ANSWER_ID } from '../contract/toast-look'
import { ToasterHost } from './components/toaster-host'
import { FORM_ISLAND_ID, FormIsland } from './islands/form-island'
import { announceOutcome } from './lib/announce-outcome'
import { outcomeFromRedirect } from './lib/native-submit-result'

/**
 * Brings the prerendered page to life. Only the form is hydrated: the rest of the page has nothing
 * to act on, so React neither downloads nor walks it. Toasts get a root of their own, outside the
 * page, so they can appear on any screen. Exported, not run on import: the prerender imports this
 * chunk too.
 */
export async function hydrate() {
  const path = window.location.pathname
  const root = document.getElementById('root')
  if (!root) throw new Error('The prerendered page has no #root element')

  const toasts = document.createElement('div')
  document.body.append(toasts)
  createRoot(toasts).render(<ToasterHost />)

  if (path !== '/') {
    // The product requires this log line, word for word: the missing path, for whoever reads the console.
    console.error('404 Error: User attempted to access non-existent route:', path)
  }

  const island = document.getElementById(FORM_ISLAND_ID)
  if (root.childElementCount === 0 && import.meta.env.DEV) {
    // The dev server sends index.html without the prerender: draw the whole page here.
    const { App } = await import('./app')
    createRoot(root).render(<App path={path} />)
  } else if (island) {
    // As a transition, hydration yields to the browser every few milliseconds instead of holding
    // the main thread in one long task (React renders transitions in time slices).
    startTransition(() => {
      hydrateRoot(island, <FormIsland />)
    })
  } else {
    // The 404 page: static, nothing to hydrate.
    document.documentElement.dataset.hydrated = ''
  }

  // A form submitted before the script ran was answered by the server with a redirect that names
  // its outcome; show the same toast a hydrated submit would, then tidy the address bar. The
  // server's answer in the page (for scripts off) gives way to it, so the words show once.
  const redirected = outcomeFromRedirect(window.location)
  if (redirected) {
    document.getElementById(NO_SCRIPT_ANSWER_ID)?.remove()
    announceOutcome(redirected.outcome)
    window.history.replaceState(null, '', redirected.cleanUrl)
  }
}
