import { lazy, Suspense, useSyncExternalStore } from 'react'
import { currentToasts, serverToasts, subscribeToToasts } from '../lib/toast-store'
import { ErrorBoundary } from './error-boundary'
import { ToastFallback } from './toast-fallback'

// Radix Toast is fetched with the first toast, not with the page.
const Toaster = lazy(() => import('./toaster').then((module) => ({ default: module.Toaster })))

/** Mounted at the app root so a toast can appear on any screen. */
export function ToasterHost() {
  const toasts = useSyncExternalStore(subscribeToToasts, currentToasts, serverToasts)
  if (toasts.length === 0) return null
  return (
    // The toaster's chunk can fail to load (a redeploy renamed it): the same words, without Radix.
    <ErrorBoundary fallback={<ToastFallback toasts={toasts} />}>
      <Suspense fallback={null}>
        <Toaster toasts={toasts} />
      </Suspense>
    </ErrorBoundary>
  )
}
