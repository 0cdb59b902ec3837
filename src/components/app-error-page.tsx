import { StatusPage } from './status-page'

/** The whole page's fallback when rendering fails: the same look as the 404 page, and a way back. */
export function AppErrorPage() {
  return (
    <StatusPage
      heading="Unexpected Application Error!"
      line="Something went wrong on our side. Please try again."
    />
  )
}
