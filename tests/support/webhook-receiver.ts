import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** How the receiver answers: a status, a body that never ends, no answer, or bytes that are not HTTP. */
export type ReceiverMode =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'huge'; status: number; bytes: number }
  | { kind: 'hang' }
  | { kind: 'garbage' }

export interface ReceivedRequest {
  id: string
  path: string
  headers: IncomingHttpHeaders
  body: string
  /** What the receiver answered with. */
  mode: ReceiverMode['kind']
  status?: number
}

export interface WebhookReceiver {
  url: string
  port: number
  /** Every request received, in order, whatever it was answered. */
  requests: ReceivedRequest[]
  /** The most requests carrying one webhook-id that were in progress at the same moment. */
  maxConcurrentPerId(): number
  /** The most requests of any id in progress at the same moment. */
  maxConcurrent(): number
  /** Changes how the next requests are answered. */
  answer(mode: ReceiverMode): void
  /** Each request is answered this long after it arrives (to make overlaps likely). */
  delayMs: number
  /** Bodies of requests answered 2xx, parsed. */
  delivered(): { id: string; body: Record<string, unknown> }[]
  /** Waits until check() is true, polling; fails with the message after timeoutMs. */
  waitFor(check: () => boolean, message: string, timeoutMs?: number): Promise<void>
  /** Stops listening and cuts every connection (a receiver that went away). */
  close(): Promise<void>
  /** Listens again on the same port. */
  reopen(): Promise<void>
}

/** A webhook receiver on 127.0.0.1 and a free (then fixed) port that records what it is sent. */
export async function startWebhookReceiver(
  mode: ReceiverMode = { kind: 'status', status: 204 },
): Promise<WebhookReceiver> {
  let current = mode
  const requests: ReceivedRequest[] = []
  const active = new Map<string, number>()
  let activeTotal = 0
  let maxPerId = 0
  let maxTotal = 0

  const reply = (response: ServerResponse, answer: ReceiverMode) => {
    if (answer.kind === 'status') {
      response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers })
      response.end(answer.body ?? '')
    } else if (answer.kind === 'huge') {
      response.writeHead(answer.status, { 'content-type': 'text/plain', 'content-length': answer.bytes })
      const chunk = Buffer.alloc(64 * 1024, 'x')
      let left = answer.bytes
      const pump = () => {
        while (left > 0) {
          const piece = chunk.subarray(0, Math.min(chunk.length, left))
          left -= piece.length
          if (!response.write(piece)) return void response.once('drain', pump)
        }
        response.end()
      }
      response.on('error', () => {})
      pump()
    } else if (answer.kind === 'garbage') {
      response.socket?.end('THIS IS NOT HTTP\r\n\r\n\u0000\u0001')
    }
    // 'hang': never answer; close() cuts the connection.
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const id = String(request.headers['webhook-id'] ?? '')
      const answer = current
      requests.push({
        id,
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        mode: answer.kind,
        status: answer.kind === 'status' || answer.kind === 'huge' ? answer.status : undefined,
      })
      const now = (active.get(id) ?? 0) + 1
      active.set(id, now)
      activeTotal++
      maxPerId = Math.max(maxPerId, now)
      maxTotal = Math.max(maxTotal, activeTotal)
      let done = false
      const finish = () => {
        if (done) return
        done = true
        active.set(id, (active.get(id) ?? 1) - 1)
        activeTotal--
      }
      response.on('close', finish)
      setTimeout(() => reply(response, answer), receiver.delayMs)
    })
  })
  server.keepAliveTimeout = 1_000

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  await listen(0)
  const { port } = server.address() as AddressInfo

  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks/signup`,
    port,
    requests,
    delayMs: 0,
    maxConcurrentPerId: () => maxPerId,
    maxConcurrent: () => maxTotal,
    answer(next) {
      current = next
    },
    delivered() {
      return requests
        .filter((request) => request.status !== undefined && request.status < 300 && request.status >= 200)
        .map((request) => ({ id: request.id, body: JSON.parse(request.body) as Record<string, unknown> }))
    },
    async waitFor(check, message, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting: ${message}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    async close() {
      if (!server.listening) return
      const closed = new Promise((resolve) => server.close(resolve))
      server.closeAllConnections()
      await closed
    },
    reopen: () => listen(port),
  }
  return receiver
}

/** The distinct addresses among the deliveries a receiver accepted. */
export function deliveredEmails(receiver: WebhookReceiver): string[] {
  const emails = receiver.delivered().map(({ body }) => (body.data as { email: string }).email.toLowerCase())
  return [...new Set(emails)].sort()
}
