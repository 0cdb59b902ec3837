import { StatusPage } from '../components/status-page'

/** Static HTML: nothing on it to act on. The missing path is logged by src/hydrate.tsx. */
export function NotFoundPage() {
  return <StatusPage heading="404" line="Oops! Page not found" />
}
