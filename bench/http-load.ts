import autocannon from 'autocannon'

export interface LoadResult {
  requestsPerSecond: number
  p99Ms: number
  ok: number
  non2xx: number
  errors: number
}

export interface LoadOptions {
  url: string
  connections: number
  durationSeconds: number
  /** A fixed number of requests instead of a duration; the rate is then over the run's own time. */
  amount?: number
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  /** '[<id>]' in the body is replaced by a fresh id per request (unique e-mails). */
  body?: string
  /** Headers of the nth request, on top of `headers` (a client address per request, say). */
  headersOf?: (n: number) => Record<string, string>
  /** A sequence of requests each connection cycles through (paths and headers), instead of one. */
  requests?: autocannon.Request[]
}

/** autocannon's hook for requests that differ one from the next. */
function varied(headersOf: (n: number) => Record<string, string>): autocannon.Request[] {
  let n = 0
  return [
    {
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...headersOf(n++) } }),
    },
  ]
}

/**
 * One autocannon run; keep-alive connections, as a browser or a proxy in front would hold. A closed
 * load: each connection sends its next request as soon as the last is answered, for the most a
 * server does. Visitors arriving at a rate are open-load.ts's.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    amount: options.amount,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    idReplacement: options.body?.includes('[<id>]') ?? false,
    requests: options.requests ?? (options.headersOf && varied(options.headersOf)),
  })
  const ok = result['2xx']
  return {
    requestsPerSecond: ok / (options.amount ? result.duration : options.durationSeconds),
    p99Ms: result.latency.p99,
    ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}

/** What a browser sends, so the server answers with its precompressed bodies. */
export const BROWSER_HEADERS = { 'accept-encoding': 'br, gzip' }
