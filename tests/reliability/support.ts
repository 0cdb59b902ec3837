import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { expect } from 'vitest'
import { type ServerDatabase, withServerDatabase } from '../../harness/server-database'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist, type WaitlistTarget } from '../../harness/waitlist-api'

/** One insert as supabase-js sends it (return=minimal). */
export const insert = postWaitlist

/** Inserts and returns only the status, draining the body so the connection is reused. */
export async function insertStatus(
  server: WaitlistTarget,
  email: string,
  headers: Record<string, string> = {},
) {
  const response = await insert(server, { email }, headers)
  await response.arrayBuffer()
  return response.status
}

/**
 * The table's row count, read from the server's database: what is stored, whatever the REST room
 * answers (the service_role read over HTTP is tested as a contract of its own).
 */
export async function rowCount(server: ServerDatabase): Promise<number> {
  const [row] = await withServerDatabase(server, (db) =>
    db.query<{ count: number }>('select count(*)::int as count from public.waitlist'),
  )
  return row?.count ?? 0
}

/** Every stored address, lower-cased, oldest first, read from the server's database. */
export async function storedEmails(server: ServerDatabase): Promise<string[]> {
  const rows = await withServerDatabase(server, (db) =>
    db.query<{ email: string }>('select lower(email::text) as email from public.waitlist order by id'),
  )
  return rows.map((row) => row.email)
}

/** Runs `tasks` with at most `concurrency` at once; results in task order. */
export async function pool<T>(concurrency: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length)
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++
      results[index] = await (tasks[index] as () => Promise<T>)()
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker))
  return results
}

export function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

/** The child's resident memory in KiB, from /proc (Linux). */
export function rssKiB(server: TestServer): number {
  const status = readFileSync(`/proc/${server.process.pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
}

/**
 * Asserts a JSON error in PostgREST's shape `{code, details, hint, message}`, or, for refusals
 * hosted Supabase's gateway makes before PostgREST (missing or invalid key, body too large), the
 * gateway's `{message, hint?}`: supabase-js reads both.
 */
export async function expectPostgrestShape(response: Response, label: string) {
  expect(response.headers.get('content-type'), label).toMatch(/^application\/json/)
  const body = (await response.json()) as Record<string, unknown>
  const keys = Object.keys(body).sort().join(',')
  expect(['code,details,hint,message', 'hint,message', 'message'], `${label}: ${keys}`).toContain(keys)
  if ('code' in body) expect(typeof body.code, label).toBe('string')
  expect(typeof body.message, label).toBe('string')
  return body
}

/** Mixed letter case of one address: the unique constraint must see them as one. */
export function mixedCase(email: string, variant: number): string {
  return [...email].map((char, index) => ((index + variant) % 3 === 0 ? char.toUpperCase() : char)).join('')
}

export async function healthy(server: WaitlistTarget): Promise<boolean> {
  const response = await fetch(`${server.url}/healthz`).catch(() => undefined)
  await response?.arrayBuffer()
  return response?.status === 200
}

const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/

/** Server output must never hold an address in clear text (the logger masks them). */
export function expectNoEmail(output: string) {
  expect(EMAIL_IN_TEXT.exec(output)?.[0]).toBeUndefined()
}

export interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Sends bytes exactly as given over a socket (paths a URL parser would tidy, NUL bytes, broken
 * framing) and reads the answer until the server closes or `timeoutMs` passes.
 */
export async function rawRequest(
  url: string,
  request: string | Buffer,
  timeoutMs = 10_000,
): Promise<RawAnswer> {
  const { connect } = await import('node:net')
  const { port, hostname } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer in ${timeoutMs} ms`))
    }, timeoutMs)
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', () => {}) // a reset after the answer is fine; 'close' follows
    socket.on('close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('utf8')
      const [head = '', ...rest] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      let body = rest.join('\r\n\r\n')
      if (headers['transfer-encoding'] === 'chunked') body = dechunk(body)
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body })
    })
    socket.write(request)
  })
}

function dechunk(text: string): string {
  let out = ''
  let rest = text
  while (rest.length > 0) {
    const lineEnd = rest.indexOf('\r\n')
    const size = Number.parseInt(rest.slice(0, lineEnd), 16)
    if (!size) break
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size)
    rest = rest.slice(lineEnd + 2 + size + 2)
  }
  return out
}

/** Wraps a raw answer as a Response so the same assertions apply. */
export function asResponse(answer: RawAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers })
}

/** A process's private resident memory in KiB (RssAnon: its heap, not shared memory or files). */
export function anonKiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
}

/** The inodes of the sockets a process holds open. */
function socketInodes(pid: number | undefined): Set<string> {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
      if (inode) inodes.add(inode)
    } catch {
      // Closed between the listing and the read.
    }
  }
  return inodes
}

/**
 * How many of the connections from `clientPorts` (the local ports of a test's own sockets) the
 * process still holds a socket for, in any TCP state: /proc/net/tcp{,6} maps each socket's inode
 * to its peer's port. A socket the server only ended, not destroyed, is still counted.
 */
export function heldConnections(pid: number | undefined, clientPorts: ReadonlySet<number>): number {
  const inodes = socketInodes(pid)
  let held = 0
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      const remotePort = Number.parseInt(fields[2]?.split(':')[1] ?? '', 16)
      if (inodes.has(fields[9] ?? '') && clientPorts.has(remotePort)) held++
    }
  }
  return held
}

/** A client that sent its first bytes and nothing more, and never closes its own side. */
export interface StalledClient {
  socket: Socket
  /** What the server sent before it closed its side. */
  answer: Promise<string>
}

/** Connects to the server at `url`, sends `start`, then stalls, as a slowloris attacker does. */
export function stalledClient(url: string, start: string): Promise<StalledClient> {
  const { port, hostname } = new URL(url)
  return new Promise((resolve, reject) => {
    // allowHalfOpen: the server's FIN does not make this side close; an attacker's never does.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true })
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString()
    })
    const answer = new Promise<string>((settle) => socket.once('end', () => settle(received)))
    socket.once('error', reject)
    socket.once('connect', () => socket.write(start, () => resolve({ socket, answer })))
  })
}

/**
 * Eight writes in a row from one client, `write(i)` each: the burst of five goes in, the rest are
 * refused with 429, a Retry-After of 1-60 s and PostgREST's PGRST429 body.
 */
export async function expectBurstThenRefused(write: (i: number) => Promise<Response>): Promise<void> {
  const statuses: number[] = []
  let refused: Response | undefined
  for (let i = 0; i < 8; i++) {
    const response = await write(i)
    statuses.push(response.status)
    if (response.status === 429) refused ??= response
    else await response.arrayBuffer()
  }
  expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429, 429])
  const retryAfter = Number(refused?.headers.get('retry-after'))
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(60)
  expect((await expectPostgrestShape(refused as Response, '429')).code).toBe('PGRST429')
}

/**
 * A fresh client's five tokens against arrays: 3 rows take 3; the next 3-row array finds too few
 * (429 with Retry-After, its own token spent, nothing written); one single row fits, then none.
 * `first` and `second` may be two servers sharing one database's buckets.
 */
export async function expectRowsCharged(
  first: WaitlistTarget,
  second: WaitlistTarget,
  prefix: string,
  client: Record<string, string>,
): Promise<void> {
  const rows = (count: number, tag: string) =>
    Array.from({ length: count }, (_, i) => ({ email: `${prefix}.${tag}.${i}@example.com` }))
  expect((await insert(first, rows(3, 'fits'), client)).status).toBe(201)
  const refused = await insert(second, rows(3, 'over'), client)
  expect(refused.status).toBe(429)
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  expect(await insertStatus(first, `${prefix}.single.1@example.com`, client)).toBe(201)
  expect(await insertStatus(second, `${prefix}.single.2@example.com`, client)).toBe(429)
}
