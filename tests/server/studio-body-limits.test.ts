import { readFileSync } from 'node:fs'
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { storedPasskey } from '../../harness/team-session'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { bodyLimitOf, LARGER_BODIES } from '../../owner/studio-server/body-limits'
import { createLocalStudio } from '../../owner/team-studio/local-studio'
import { createTeamStudio } from '../../owner/team-studio/team-studio-app'
import { relyingPartyOf } from '../../server/boot/team-studio-mount'
import type { Database } from '../../server/db/database'
import { openPostgres } from '../../server/db/postgres-driver'
import { addMember } from '../../server/team/team-members'
import { startSession } from '../../server/team/team-sessions'

/**
 * Issue 61, item 5: every route of the studio and the team studio that may take a body bounds it
 * (64 KiB, more only where body-limits.ts names the route) and answers 413 in the studio's JSON
 * before reading more. The routes are read from the apps' own tables, so a new one is walked too;
 * the requests go to the real processes: the site's server (the team studio at /studio) and
 * `waitlist studio`, whose memory is read from /proc.
 */

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const MIB = 1024 * 1024
const LARGE = 20 * MIB
/** A server that reads a bounded body answers at once; one that waits for the rest never does. */
const NO_ANSWER_MS = 10_000
const FALLBACK = { SITE_URL: 'http://localhost', PORT: 3000 }

let server: TestServer
let studio: StudioProcess
let db: Database
let teamHeaders: OutgoingHttpHeaders
let studioHeaders: OutgoingHttpHeaders

interface Route {
  method: string
  path: string
}

/** One of the processes under test: where it listens, how its page calls it, and its routes. */
interface Target {
  name: string
  port: () => number
  pid: () => number
  prefix: string
  headers: () => OutgoingHttpHeaders
  /** Every route that may take a body, from the app's own table, as the process builds it. */
  routes: () => Route[]
}

const bodyRoutes = (app: Hono) => {
  const seen = new Map<string, Route>()
  for (const { method, path } of app.routes)
    if (BODY_METHODS.has(method)) seen.set(`${method} ${path}`, { method, path })
  return [...seen.values()]
}

const TARGETS: Target[] = [
  {
    name: 'the team studio',
    port: () => Number(new URL(server.url).port),
    pid: () => server.process.pid ?? 0,
    prefix: '/studio',
    headers: () => teamHeaders,
    routes: () =>
      bodyRoutes(
        createTeamStudio({
          db,
          files: new Map(),
          relyingParty: () => relyingPartyOf(server.url),
          secure: false,
          invite: { fallback: FALLBACK },
          backup: { DATA_DIR: '.' },
        }),
      ),
  },
  {
    name: 'the local studio',
    port: () => studio.port,
    pid: () => studio.process.pid ?? 0,
    prefix: '',
    headers: () => studioHeaders,
    routes: () =>
      bodyRoutes(
        createLocalStudio({
          database: { db, stopped: async () => false },
          files: new Map(),
          invite: { fallback: FALLBACK },
          backup: { DATA_DIR: '.' },
          port: () => studio.port,
          announce: () => {},
        }).app,
      ),
  },
]

beforeAll(async () => {
  const url = await sharedPostgresUrl()
  server = await startTestServer({ env: { DATABASE_URL: url } })
  studio = await startStudioProcess(server.env)
  db = await openPostgres(url, 2)
  // An owner may call every route: what refuses these bodies is their size, not the role.
  expect((await addMember(db, { name: 'cli:test' }, 'owner@lab.example', 'owner')).done).toBe(true)
  const [owner] = await db.query<{ id: string }>(
    `select id::text as id from private.team_members where email = 'owner@lab.example'`,
  )
  const ownerMember = { memberId: owner?.id ?? '', email: 'owner@lab.example' }
  const passkeyId = await storedPasskey(db, ownerMember, "the owner's laptop")
  const session = await db.transaction((tx) =>
    startSession(tx, ownerMember.memberId, { passkeyId, device: 'Chrome on Linux', network: undefined }),
  )
  teamHeaders = {
    Cookie: `studio-session=${session}`,
    Origin: relyingPartyOf(server.url).origin,
    'Content-Type': 'application/json',
  }
  studioHeaders = {
    'Sec-Fetch-Site': 'same-origin',
    Authorization: `Bearer ${studio.token}`,
    'Content-Type': 'application/json',
  }
}, 120_000)

afterAll(async () => {
  await studio?.stop()
  await db?.close()
  await server?.cleanup()
  await stopBackends()
})

// A JSON body the old routes would have parsed whole: an address, then padding to the length asked.
const PREFIX = '{"email":"nobody@example.com","pad":"'
const SOURCE = Buffer.alloc(LARGE, 'x')
SOURCE.write(PREFIX)
SOURCE.write('"}', LARGE - 2)

interface Sending {
  /** Sent as Transfer-Encoding: chunked; else with Content-Length: `length`. */
  chunked: boolean
  length: number
  /** How much of the body goes before the client waits; the rest only if no answer came first. */
  send: number
}

interface Answer {
  status: number
  body: string
  /** Bytes of the body written before the answer came. */
  written: number
}

/** A request with a body, on a socket of its own, written as the socket takes it, until an answer comes. */
function send(target: Target, { method, path }: Route, sending: Sending): Promise<Answer> {
  const framing = sending.chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': sending.length }
  return new Promise((resolve) => {
    let written = 0
    let answered = false
    const done = (answer: Answer) => {
      answered = true
      clearTimeout(timer)
      resolve(answer)
      request.destroy()
    }
    const timer = setTimeout(() => done({ status: 0, body: 'no answer', written }), NO_ANSWER_MS)
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: target.port(),
        path: target.prefix + path,
        method,
        agent: false,
        // As a browser keeps it: with `agent: false` Node's client asks the server to close after
        // answering, and a close while the body is still being written can reach the client
        // (EPIPE) before the answer does.
        headers: { ...target.headers(), ...framing, Connection: 'keep-alive' },
      },
      (response) => {
        answered = true
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          text += chunk
        })
        response.on('end', () => done({ status: response.statusCode ?? 0, body: text, written }))
      },
    )
    // The server may answer and close before the whole body is written.
    request.on('error', (error) => {
      if (!answered) done({ status: 0, body: String(error), written })
    })
    request.flushHeaders()
    const write = () => {
      while (!answered && written < sending.send) {
        const chunk = SOURCE.subarray(written, Math.min(sending.send, written + 64 * 1024))
        written += chunk.length
        if (!request.write(chunk)) return void request.once('drain', write)
      }
      if (!answered && written === sending.length) request.end()
    }
    write()
  })
}

/** A process's resident memory, from /proc/PID/status, in MiB. */
function rssMiB(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kib) / 1024
}

const tooLarge = ({ method, path }: Route) => ({
  status: 413,
  body: JSON.stringify({
    error: `That request is too large: the studio reads at most ${bodyLimitOf(method, path) / 1024} KiB here.`,
  }),
})

describe('the studio bounds every body it may read', () => {
  it('finds a route for each larger bound it names, and the four that read any size', () => {
    const walked = TARGETS.flatMap((target) => target.routes().map(({ method, path }) => `${method} ${path}`))
    for (const key of Object.keys(LARGER_BODIES)) expect(walked).toContain(key)
    for (const path of ['/api/invite/test', '/api/invite', '/api/send-health/resume', '/api/remove'])
      expect(walked).toContain(`POST ${path}`)
    expect(walked.length).toBeGreaterThan(20)
  })

  for (const target of TARGETS)
    it(`${target.name}: a body one byte over the route's bound, declared or chunked, is 413 before any more is read`, async () => {
      for (const route of target.routes()) {
        const over = bodyLimitOf(route.method, route.path) + 1
        // The length alone refuses it: not a byte of the body is sent, and the answer comes.
        const declared = await send(target, route, { chunked: false, length: over, send: 0 })
        expect(declared, `declared ${route.path}`).toEqual({ ...tooLarge(route), written: 0 })
        // One byte past the bound, and the body never ends: the answer cannot wait for the rest.
        const chunked = await send(target, route, { chunked: true, length: LARGE, send: over })
        expect(chunked, `chunked ${route.path}`).toEqual({ ...tooLarge(route), written: over })
      }
    })

  for (const target of TARGETS)
    it(`${target.name}: 20 MiB bodies on every route, declared and chunked, leave its memory as it was`, async () => {
      const routes = target.routes()
      const before = rssMiB(target.pid())
      for (const route of routes)
        for (const chunked of [false, true]) {
          const answer = await send(target, route, { chunked, length: LARGE, send: LARGE })
          expect(
            { status: answer.status, body: answer.body },
            `${chunked ? 'chunked' : 'declared'} ${route.method} ${route.path}`,
          ).toEqual(tooLarge(route))
        }
      const grown = rssMiB(target.pid()) - before
      // The old routes read each body whole: 20 MiB of text, then its string and its parse.
      expect(
        grown,
        `${routes.length * 2} bodies of 20 MiB grew ${target.name} by ${grown.toFixed(1)} MiB`,
      ).toBeLessThan(30)
    })
})
