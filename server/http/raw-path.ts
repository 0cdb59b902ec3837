/**
 * A request's path as the client sent it, still percent-encoded, for the access log: `%0a` stays
 * three characters and can never start a forged line (Hono's `c.req.path` is decoded). Without the
 * query, which may carry a key (`?apikey=`). No URL parse: it runs on every request.
 */
export function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const query = url.indexOf('?', start)
  return query < 0 ? url.slice(start) : url.slice(start, query)
}

/** The access log's line for one answer: method, raw path, status and the milliseconds it took. */
export function accessLine(method: string, url: string, status: number, started: number): string {
  return `${method} ${rawPath(url)} ${status} ${(performance.now() - started).toFixed(1)}ms`
}
