import type { ServerOptions } from 'node:http'
import type { Duplex } from 'node:stream'
import { securityHeaderValues } from './security-headers'

/** Request line plus headers; Node's own default, stated so it cannot drift. */
export const MAX_HEADER_BYTES = 16 * 1024

export interface TimeoutOptions {
  headersTimeoutMs: number
  requestTimeoutMs: number
}

/** Node's HTTP server options: bounded headers and slow clients cut off (slowloris, slow bodies). */
export function httpServerOptions({ headersTimeoutMs, requestTimeoutMs }: TimeoutOptions): ServerOptions {
  return {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    // How often Node looks for requests past those timeouts (default 30 s would let them linger).
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
    keepAliveTimeout: 5000,
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
}

function rawJsonError(status: number, code: string, message: string): string {
  const body = JSON.stringify({ code, details: null, hint: null, message })
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...securityHeaderValues(),
  }
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`)
  return `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`
}

/** How long a refused client has to take its answer before its socket goes regardless. */
const FLUSH_GRACE_MS = 1000

/**
 * Answers what Node's parser refuses before any route sees it (oversized headers, malformed
 * request lines, timeouts) in the same JSON shape as every other error, then destroys the socket.
 * Ending it is not enough: Node's HTTP sockets allow half-open connections, so an ended socket
 * stays open (FIN-WAIT-2 here) until the client closes its side, which a stalled client never
 * does, and a request whose body was being read would never settle (ADR 024).
 */
export function onClientError(error: Error & { code?: string }, socket: Duplex) {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'PGRST431', 'Request header fields too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'PGRST408', 'Request timeout']
        : [400, 'PGRST400', 'Malformed HTTP request']
  const destroy = () => socket.destroy()
  socket.once('finish', destroy)
  setTimeout(destroy, FLUSH_GRACE_MS).unref()
  socket.end(rawJsonError(status, code, message))
}
