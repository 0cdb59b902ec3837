import { useEffect } from 'react'
import { StatusPage } from '../components/status-page'

export function NotFoundPage({ path }: { path: string }) {
  useEffect(() => {
    // Required by the specification (section 2): the missing path is logged.
    console.error('404 Error: User attempted to access non-existent route:', path)
  }, [path])

  return <StatusPage heading="404" line="Oops! Page not found" />
}
