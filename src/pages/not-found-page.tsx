import { StatusPage } from '../components/status-page'
import { SiteHeader } from '../sections/site-header'

/** Static HTML: nothing on it to act on. The missing path is logged by src/hydrate.tsx. */
export function NotFoundPage() {
  return <StatusPage heading="404" line="Oops! Page not found" header={<SiteHeader />} />
}
