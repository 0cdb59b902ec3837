import { siteConfig } from '../contract/site-config'
import { App } from './app'
import { homeHeadElements, notFoundHeadElements } from './discovery/head-tags'

/**
 * Build-time rendering of both screens, called by vite-prerender-plugin. The plugin writes
 * '/' to dist/index.html and '/404' to dist/404/index.html; the server sends the latter, with
 * status 404, for every unknown path.
 */
export async function prerender({ url }: { url: string }) {
  // Dynamic so it never lands in the page's bundle; the edge build, because the browser build
  // opens a MessageChannel that would keep the build process alive.
  const { renderToString } = await import('react-dom/server.edge')
  const isHome = url === '/'
  const title = isHome
    ? `${siteConfig.labName}: ${siteConfig.tagline}`
    : `Page not found | ${siteConfig.labName}`
  return {
    html: renderToString(<App path={isHome ? '/' : url} />),
    head: {
      lang: 'en',
      title,
      // Description, canonical URL, link previews, JSON-LD, icons and the agent catalog link.
      elements: new Set(isHome ? homeHeadElements(siteConfig, title) : notFoundHeadElements(siteConfig)),
    },
  }
}
