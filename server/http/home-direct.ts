import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import type { HeaderReader } from '../analytics/source-of'
import type { Logger } from '../base/log'
import { answerHome } from './home-page'
import type { HttpSourceCounter } from './http-source-counter'
import { accessLine } from './raw-path'
import type { StaticSite } from './static-site'

/**
 * The Host values @hono/node-server puts into the request's URL as they are (its reValidHost);
 * any other, the app's request handling checks and spells (or refuses), so it goes to the app.
 */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/

export interface DirectHomeDeps {
  site: StaticSite
  log: Logger
  sources?: HttpSourceCounter
  originTrialToken?: string
  /** HOST: the URL's host for a request without a Host header, as the app's adapter takes it. */
  hostname: string
}

/**
 * '/' as browsers load it, written straight to Node's response (ADR 101). At a launch most requests
 * are this one, and the app's Request, routing and Response took more CPU than the page itself
 * (150 µs a load against 62 for a bare node:http server). Only the plainest form is taken here: GET
 * or HEAD of exactly '/', no Markdown named in Accept, an ordinary Host, no TLS. The app answers
 * everything else, the no-script form's answer pages (a query) and the Markdown too. The file,
 * its headers, the visit count and the access log's line are the app's route's (home-page.ts).
 * Returns false, having written nothing, when the app is to answer.
 */
export function directHome(deps: DirectHomeDeps) {
  return (incoming: IncomingMessage, response: ServerResponse): boolean => {
    const { method = '', url } = incoming
    if (url !== '/' || (method !== 'GET' && method !== 'HEAD')) return false
    const host = incoming.headers.host || deps.hostname
    if (!PLAIN_HOST.test(host) || (incoming.socket as TLSSocket).encrypted) return false
    if (incoming.headers.accept?.toLowerCase().includes('markdown')) return false
    const started = performance.now()
    const headers = headerReader(incoming.rawHeaders)
    const request = {
      method,
      acceptEncoding: headers.get('accept-encoding') ?? undefined,
      ifNoneMatch: headers.get('if-none-match'),
    }
    const answer = answerHome(request, deps.site, deps.originTrialToken)
    response.writeHead(answer.status, answer.headers)
    response.end(answer.body)
    const pageUrl = `http://${host}/`
    deps.sources?.countDirectVisit(
      { method, url: pageUrl, headers },
      incoming.socket.remoteAddress,
      answer.status,
    )
    deps.log.info(accessLine(method, pageUrl, answer.status, started))
    return true
  }
}

/**
 * Node's raw headers read as the Fetch API's Headers read them (the app's requests are built
 * from the same raw list): any letter case, and a repeated header's values joined with ", ".
 */
function headerReader(raw: string[]): HeaderReader {
  const values = new Map<string, string>()
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase()
    const value = raw[index + 1] as string
    const before = values.get(name)
    values.set(name, before === undefined ? value : `${before}, ${value}`)
  }
  return { get: (name) => values.get(name.toLowerCase()) ?? null }
}
