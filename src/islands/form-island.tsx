import { useEffect } from 'react'
import { ErrorBoundary } from '../components/error-boundary'
import { PageTakeover } from '../components/page-takeover'
import { WaitlistForm } from '../components/waitlist-form'
import { RenderErrorProbe } from '../lib/render-error-probe'

/** The element around the form that the browser hydrates: the prerender and the client agree on it. */
export const FORM_ISLAND_ID = 'waitlist-island'

/**
 * The access-request form as an island of its own: the only part of the home page a visitor can
 * act on, so the only part React hydrates. The header, the text and the footer stay static HTML.
 */
export function FormIsland() {
  // Effects run only once hydration has committed, never in the prerender: from here on React
  // answers the form (before, a submit is the no-script POST). Tests and automation wait for it.
  useEffect(() => {
    document.documentElement.dataset.hydrated = ''
  }, [])
  return (
    <ErrorBoundary fallback={<PageTakeover />}>
      <RenderErrorProbe />
      <WaitlistForm />
    </ErrorBoundary>
  )
}
