import { ToasterHost } from './components/toaster-host'
import { HomePage } from './pages/home-page'
import { NotFoundPage } from './pages/not-found-page'

/** Two prerendered screens need no router: '/' is the page, every other path is the 404. */
export function App({ path }: { path: string }) {
  return (
    <>
      {path === '/' ? <HomePage /> : <NotFoundPage path={path} />}
      <ToasterHost />
    </>
  )
}
