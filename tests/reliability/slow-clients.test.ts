import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { expectNoEmail, heldConnections, type StalledClient, stalledClient } from './support'

/**
 * Issue 25's slow-client attacks at full size, on servers with the production defaults (a queue of
 * 1,000 places, 10 s for the headers, 30 s for the whole request, the rate limit on): 1,000
 * connections that send the headers of a `POST /mcp` and one byte of its 64 KB body, and
 * separately 1,000 that never finish their headers. A signup made during either answers 201 within
 * 5 s, and again 40 s later, when every attacker has had its 408 and the server holds none of
 * their sockets, though none of them ever closes its side.
 */
const ATTACKERS = 1000
const ANSWER_WITHIN_MS = 5000
const LATER_MS = 40_000

const ATTACKS = {
  'stalled /mcp bodies':
    'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
    'Accept: application/json, text/event-stream\r\nContent-Length: 65536\r\n\r\n{',
  'stalled header sends': 'POST /rest/v1/waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applic',
}

/** Opens the attackers a hundred at a time (the listen backlog is finite). */
async function attack(url: string, start: string): Promise<StalledClient[]> {
  const opened: StalledClient[] = []
  while (opened.length < ATTACKERS)
    opened.push(...(await Promise.all(Array.from({ length: 100 }, () => stalledClient(url, start)))))
  return opened
}

/** A signup as the page sends it; its status, or 0 when no answer came within the time. */
async function signup(server: TestServer, email: string): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  const status = await fetch(`${server.url}/rest/v1/waitlist`, {
    method: 'POST',
    headers: {
      apikey: server.anonKey,
      Authorization: `Bearer ${server.anonKey}`,
      'Content-Type': 'application/json',
      Prefer: 'return=minimal',
    },
    body: JSON.stringify({ email }),
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  }).then(
    async (response) => {
      await response.arrayBuffer()
      return response.status
    },
    () => 0,
  )
  return { status, ms: Math.round(performance.now() - started) }
}

const servers: TestServer[] = []
beforeAll(async () => {
  const env = { RATE_LIMIT_PER_MINUTE: '10' }
  servers.push(...(await Promise.all([startTestServer({ env }), startTestServer({ env })])))
})
afterAll(async () => {
  await Promise.all(servers.map((server) => server.cleanup()))
})

describe.concurrent('slow clients at scale', () => {
  it.each(Object.entries(ATTACKS).map(([name, start], index) => ({ name, start, index })))(
    '1,000 $name: signups answer 201 during the attack and 40 s later; every socket is let go',
    async ({ name, start, index }) => {
      const server = servers[index] as TestServer
      const began = Date.now()
      const attackers = await attack(server.url, start)
      const ports = new Set(attackers.map(({ socket }) => socket.localPort ?? 0))
      await expect.poll(() => heldConnections(server.process.pid, ports), { timeout: 30_000 }).toBe(ATTACKERS)
      await new Promise((resolve) => setTimeout(resolve, 500)) // for the server to read what they sent
      const during = await signup(server, `during.${index}@example.com`)
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, began + LATER_MS - Date.now())))
      const later = await signup(server, `later.${index}@example.com`)
      const held = heldConnections(server.process.pid, ports)
      const answers = await Promise.all(attackers.map(({ answer }) => answer))
      console.log(
        `${name}: signup during ${JSON.stringify(during)}, 40 s later ${JSON.stringify(later)}, sockets held ${held}`,
      )
      expect(during.status).toBe(201)
      expect(later.status).toBe(201)
      expect(answers.filter((answer) => answer.startsWith('HTTP/1.1 408 '))).toHaveLength(ATTACKERS)
      expect(held).toBe(0)
      for (const { socket } of attackers) socket.destroy()
      expect(server.output()).not.toMatch(/unexpected error/)
      expectNoEmail(server.output())
    },
  )
})
