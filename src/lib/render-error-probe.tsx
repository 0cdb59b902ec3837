/**
 * `/?render-error` makes the page throw while it renders, so the browser tests can prove the error
 * boundary with the build visitors get. A visitor who types it only sees the error page.
 */
export function RenderErrorProbe() {
  if (typeof location !== 'undefined' && location.search === '?render-error')
    throw new Error('Render error requested by ?render-error')
  return null
}
