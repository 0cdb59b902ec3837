import { HomePage } from './pages/home-page'
import { NotFoundPage } from './pages/not-found-page'

/**
 * The two prerendered screens (no router needed): '/' is the page, every other path the 404.
 * Rendered whole at build time; in the browser only its islands are hydrated (src/hydrate.tsx).
 */
export function App({ path }: { path: string }) {
  return path === '/' ? <HomePage /> : <NotFoundPage />
}
