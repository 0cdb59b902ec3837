import { useEffect } from 'react'
import { AppErrorPage } from './components/app-error-page'
import { ErrorBoundary } from './components/error-boundary'
import { ToasterHost } from './components/toaster-host'
import { RenderErrorProbe } from './lib/render-error-probe'
import { HomePage } from './pages/home-page'
import { NotFoundPage } from './pages/not-found-page'

/** Two prerendered screens need no router: '/' is the page, every other path is the 404. */
export function App({ path }: { path: string }) {
  // Effects run only once hydration has committed, never in the prerender: from here on React
  // answers the form (before, a submit is the no-script POST). Tests and automation wait for it.
  useEffect(() => {
    document.documentElement.dataset.hydrated = ''
  }, [])
  return (
    <>
      <ErrorBoundary fallback={<AppErrorPage />}>
        <RenderErrorProbe />
        {path === '/' ? <HomePage /> : <NotFoundPage path={path} />}
      </ErrorBoundary>
      <ToasterHost />
    </>
  )
}
