import { useEffect } from 'react'
import { createPortal } from 'react-dom'
import { AppErrorPage } from './app-error-page'

/**
 * An island that failed to render shows the error page in place of the whole page, not a page
 * with a hole in it: the prerendered page is hidden and the error page drawn over the body.
 */
export function PageTakeover() {
  useEffect(() => {
    const page = document.getElementById('root')
    if (!page) return
    page.hidden = true
    return () => {
      page.hidden = false
    }
  }, [])
  return createPortal(<AppErrorPage />, document.body)
}
