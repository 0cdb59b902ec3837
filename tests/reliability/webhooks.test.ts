import { createHash } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import { withServerDatabase } from '../../harness/server-database'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { emailMask, emailMaskKey } from '../../server/base/log'
import {
  deliveredEmails,
  type ReceiverMode,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver'
import { expectNoEmail, insertStatus, storedEmails } from './support'

afterAll(stopBackends)

const SECRET = `whsec_${Buffer.alloc(32, 'notify-test').toString('base64')}`
// Short waits so retries happen within a test; the shape (doubling, cap, give-up) is production's.
const FAST = {
  SIGNUP_WEBHOOK_SECRET: SECRET,
  SIGNUP_WEBHOOK_RETRY_BASE_MS: '100',
  SIGNUP_WEBHOOK_TIMEOUT_MS: '1000',
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

async function timedInsert(server: TestServer, email: string): Promise<number> {
  const started = performance.now()
  expect(await insertStatus(server, email)).toBe(201)
  return performance.now() - started
}

/** Requests the receiver got for the delivery of one address, in order. */
function requestsFor(receiver: WebhookReceiver, email: string) {
  return receiver.requests.filter((request) => request.body.includes(`"email":"${email}"`))
}

describe('two installations (each its own JWT secret and database)', () => {
  it('send different webhook-ids for their first signup, each kept across retries, and mask one address differently', async () => {
    const email = 'same.person@example.com'
    const receiver = await startWebhookReceiver({ kind: 'status', status: 500, body: `boom for ${email}` })
    const installations = ['a', 'b']
    const servers = await Promise.all(
      installations.map((name) =>
        startTestServer({ env: { SIGNUP_WEBHOOK_URL: `${receiver.url}?installation=${name}`, ...FAST } }),
      ),
    )
    const from = (name: string) => receiver.requests.filter((r) => r.path.endsWith(`installation=${name}`))
    try {
      for (const server of servers) expect(await insertStatus(server, email)).toBe(201)
      await receiver.waitFor(
        () => installations.every((name) => from(name).length >= 2),
        'a retry from each installation',
      )
      receiver.answer({ kind: 'status', status: 204 })
      await receiver.waitFor(
        () => installations.every((name) => from(name).some((request) => request.status === 204)),
        'each delivered',
      )
      const ids = installations.map((name) => [...new Set(from(name).map((request) => request.id))])
      // One id per signup across its retries, a UUID, and not the other installation's.
      expect(ids.map((list) => list.length)).toEqual([1, 1])
      for (const [id] of ids)
        expect(id).toMatch(/^msg_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(ids[0]?.[0]).not.toBe(ids[1]?.[0])

      // The receiver's answer echoed the address; each server logged it masked with its own key.
      const bare = createHash('sha256').update(email).digest('hex').slice(0, 10)
      const masks = servers.map((server) => {
        expectNoEmail(server.output())
        return [...server.output().matchAll(/boom for <email:([0-9a-f]{10})>/g)].map((match) => match[1])
      })
      for (const [index, list] of masks.entries()) {
        expect(list.length, 'a logged failure per attempt').toBeGreaterThanOrEqual(1)
        expect(new Set(list).size, 'stable within one installation').toBe(1)
        expect(list[0]).not.toBe(bare)
        const secret = servers[index]?.secret ?? new Uint8Array()
        expect(list[0], 'the key derived from its JWT secret, as the CLI derives it').toBe(
          emailMask(email, emailMaskKey(secret)),
        )
      }
      expect(masks[0]?.[0]).not.toBe(masks[1]?.[0])
    } finally {
      await Promise.all(servers.map((server) => server.cleanup()))
      await receiver.close()
    }
  })
})

describe.each(BACKENDS)('signup notifications on $name', ({ name }) => {
  let receiver: WebhookReceiver
  let server: TestServer
  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    server = await startServerOn(name, { env: { SIGNUP_WEBHOOK_URL: receiver.url, ...FAST } })
  })
  afterAll(async () => {
    await server?.cleanup()
    await receiver?.close()
  })
  afterEach(() => {
    receiver?.answer({ kind: 'status', status: 204 })
    if (receiver) receiver.delayMs = 0
  })

  it('a signup by supabase-js and one by the no-script form are each POSTed once, signed, readable by Slack and Discord', async () => {
    const viaRest = `Notify.Rest.${name}@example.com`
    const viaForm = `notify.form.${name}@example.com`
    const sent = performance.now()
    expect(await insertStatus(server, viaRest)).toBe(201)
    await receiver.waitFor(() => deliveredEmails(receiver).length === 1, 'the first signup delivered')
    console.log(`${name}: signup to webhook received in ${(performance.now() - sent).toFixed(0)} ms`)
    const form = await fetch(`${server.url}/`, {
      method: 'POST',
      body: new URLSearchParams({ email: viaForm }),
      redirect: 'manual',
    })
    expect(form.status).toBe(303)
    await receiver.waitFor(() => deliveredEmails(receiver).length === 2, 'both signups delivered')

    const rows = await withServerDatabase(server, (db) =>
      db.query<{ email: string; created_at: Date }>('select email::text, created_at from public.waitlist'),
    )
    for (const email of [viaRest, viaForm]) {
      const [request, ...more] = requestsFor(receiver, email)
      expect(more, 'one request per signup when the receiver answers 2xx').toEqual([])
      if (!request) throw new Error(`nothing received for ${email}`)
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/)
      // The library a receiver would use accepts the signature, id and timestamp as sent.
      const verified = new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>)
      const body = verified as {
        type: string
        data: { email: string; created_at: string }
        text: string
        content: string
      }
      expect(body.type).toBe('waitlist.signup')
      expect(body.data.email).toBe(email)
      const stored = rows.find((row) => row.email === email)
      expect(new Date(body.data.created_at).getTime()).toBe(new Date(stored?.created_at ?? 0).getTime())
      expect(body.text).toContain(email)
      expect(body.content).toContain(email)
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 'other').toString('base64')}`).verify(
          request.body,
          request.headers as Record<string, string>,
        ),
      ).toThrow()
    }
    expectNoEmail(server.output())
  })

  const answers: [string, ReceiverMode, RegExp][] = [
    [
      '302 (not followed)',
      { kind: 'status', status: 302, headers: { location: '/elsewhere' } },
      /HTTP 302 \(redirects are not followed\)/,
    ],
    ['404', { kind: 'status', status: 404, body: 'no such hook' }, /HTTP 404: no such hook/],
    [
      '500 that echoes the address',
      { kind: 'status', status: 500, body: 'boom for ECHO' },
      /HTTP 500: boom for <email:[0-9a-f]{10}>/,
    ],
    ['garbage instead of HTTP', { kind: 'garbage' }, /request failed: /],
    ['500 with a 10 MB body', { kind: 'huge', status: 500, bytes: 10 * 1024 * 1024 }, /HTTP 500: x{10}/],
    ['no answer at all', { kind: 'hang' }, /no answer within 1000 ms/],
  ]
  it.each(answers)(
    'a receiver answering %s: counted as a failure, logged without the address, retried until a 2xx',
    async (label, mode, logged) => {
      const email = `notify.${label.replace(/\W+/g, '-')}.${name}@example.com`
      receiver.answer(
        mode.kind === 'status' && mode.body?.includes('ECHO')
          ? { ...mode, body: mode.body.replace('ECHO', email) }
          : mode,
      )
      expect(await insertStatus(server, email)).toBe(201)
      await receiver.waitFor(() => requestsFor(receiver, email).length >= 2, 'a retry after the failure')
      receiver.answer({ kind: 'status', status: 204 })
      await receiver.waitFor(
        () => requestsFor(receiver, email).some((request) => request.status === 204),
        'delivered once the receiver answers 2xx',
      )
      const attempts = requestsFor(receiver, email)
      expect(new Set(attempts.map((request) => request.id)).size, 'one webhook-id across retries').toBe(1)
      expect(attempts.at(-1)?.status).toBe(204)
      expect(receiver.requests.filter((request) => request.path !== '/hooks/signup')).toEqual([])
      expect(server.output()).toMatch(logged)
      expectNoEmail(server.output())
    },
  )

  it('a 2xx with a 10 MB body is delivered on the first attempt, the body left unread', async () => {
    receiver.answer({ kind: 'huge', status: 200, bytes: 10 * 1024 * 1024 })
    const email = `notify.huge-ok.${name}@example.com`
    expect(await insertStatus(server, email)).toBe(201)
    await receiver.waitFor(() => requestsFor(receiver, email).length === 1, 'one request')
    await new Promise((resolve) => setTimeout(resolve, 1_000)) // a retry would come within 0.1 s
    expect(requestsFor(receiver, email)).toHaveLength(1)
    expect(server.output()).toMatch(/delivered \(attempt 1, HTTP 200\)/)
  })

  it('a receiver that hangs does not slow signups: latency as without a webhook', async () => {
    const plain = await startServerOn(name)
    try {
      receiver.answer({ kind: 'hang' })
      const hung: number[] = []
      const baseline: number[] = []
      // Interleaved, so load on the shared machine falls on both series alike.
      for (let n = 0; n < 30; n++) {
        hung.push(await timedInsert(server, `notify.hang.${n}.${name}@example.com`))
        baseline.push(await timedInsert(plain, `notify.plain.${n}.${name}@example.com`))
      }
      console.log(
        `${name}: median insert ${median(hung).toFixed(1)} ms with a hanging receiver, ${median(baseline).toFixed(1)} ms without a webhook`,
      )
      expect(receiver.requests.filter((request) => request.mode === 'hang').length).toBeGreaterThan(0)
      expect(receiver.maxConcurrent(), 'connections to the receiver are bounded at 4').toBe(4)
      // A generous factor: the claim is "unchanged", the noise of a shared machine is large.
      expect(median(hung)).toBeLessThan(3 * median(baseline) + 5)
      expect(median(baseline)).toBeLessThan(3 * median(hung) + 5)
    } finally {
      await plain.cleanup()
    }
  })

  it('SIGTERM with a send in flight: the server exits cleanly at once, and the delivery is made after restart', async () => {
    const slow = await startWebhookReceiver({ kind: 'hang' })
    const env = { SIGNUP_WEBHOOK_URL: slow.url, ...FAST, SIGNUP_WEBHOOK_TIMEOUT_MS: '60000' }
    const stopped = await startServerOn(name, { env })
    let restarted: TestServer | undefined
    const email = `notify.sigterm.${name}@example.com`
    try {
      expect(await insertStatus(stopped, email)).toBe(201)
      await slow.waitFor(() => slow.requests.length === 1, 'the send in flight')
      await stopped.stop()
      // Within main.ts's 10 s limit, which would exit 1: the hanging send was abandoned.
      expect(stopped.process.exitCode).toBe(0)
      expect(stopped.output()).toMatch(/attempt 1 failed: abandoned: server stopping/)

      slow.answer({ kind: 'status', status: 204 })
      restarted = await startTestServer({ dataDir: stopped.dataDir, env: stopped.env })
      await slow.waitFor(() => deliveredEmails(slow).length === 1, 'delivered after the restart')
      expect(deliveredEmails(slow)).toEqual([email])
    } finally {
      await restarted?.stop()
      await stopped.cleanup()
      await slow.close()
    }
  })

  it('receiver down, then the server killed with SIGKILL, then both back: every signup is delivered', async () => {
    const down = await startWebhookReceiver()
    const port = down.port
    await down.close()
    const killed = await startServerOn(name, { env: { SIGNUP_WEBHOOK_URL: down.url, ...FAST } })
    let restarted: TestServer | undefined
    const emails = Array.from({ length: 8 }, (_, n) => `notify.crash.${n}.${name}@example.com`)
    try {
      for (const email of emails) expect(await insertStatus(killed, email)).toBe(201)
      // Attempts fail against the closed port before the kill.
      await down.waitFor(
        () => /attempt \d+ failed: request failed: ECONNREFUSED/.test(killed.output()),
        'a failed attempt logged',
      )
      await killed.kill()
      expect(killed.process.signalCode).toBe('SIGKILL')

      await down.reopen()
      expect(down.port).toBe(port)
      // The same database (data dir or DATABASE_URL) and the same receiver address.
      restarted = await startTestServer({ dataDir: killed.dataDir, env: killed.env, timeout: 60_000 })
      await down.waitFor(() => deliveredEmails(down).length === emails.length, 'all 8 delivered', 60_000)
      expect(deliveredEmails(down)).toEqual([...emails].sort())
      expect((await storedEmails(restarted)).sort()).toEqual([...emails].sort())
    } finally {
      await restarted?.stop()
      await killed.cleanup()
      await down.close()
    }
  })
})
