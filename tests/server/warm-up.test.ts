import { createServer } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SmtpSink, startSmtpSink } from '../../harness/smtp-sink'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { runningClusterUrl } from '../../server/db/embedded/embedded-cluster'

/**
 * The warm-up (ADR 111): before it listens the server readies every connection of its pool with
 * the signup's insert, rolled back; once it listens, it loads its page and signs up over loopback
 * through the one app, and /healthz says 503 until that is done. The test servers make it short;
 * here it runs as shipped (WARM_UP_MS at its default, 500), and nothing of it may show: no visit,
 * no row, no log line of a request.
 */
const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
}
const WARMED =
  /Warmed up in [\d.]+ s: ([\d,]+) page loads and ([\d,]+) signups \(nothing kept\), (\d+) database connections ready/

let server: TestServer
let sink: SmtpSink

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({
    env: {
      ...{ WARM_UP_MS: '500', LOG_LEVEL: 'info', COUNT_SOURCES_FLUSH_MS: '100' },
      ...{
        SMTP_URL: sink.url,
        MAIL_FROM: 'Lab <beta@example.com>',
        MAIL_PER_MINUTE: '0',
        CONFIRM_SIGNUPS: 'true',
      },
    },
  })
})

afterAll(async () => {
  await server?.cleanup()
  await sink?.close()
})

async function directVisits(): Promise<number> {
  const result = await runCli(server.env, 'sources', '--json')
  expect(result.code).toBe(0)
  const rows = JSON.parse(result.stdout) as { source: string; visits: number }[]
  return rows.find((row) => row.source === 'direct')?.visits ?? 0
}

async function clientBackends(dataDir: string): Promise<number> {
  const url = await runningClusterUrl(dataDir)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where backend_type = 'client backend' and pid <> pg_backend_pid()`,
    )
    return rows[0]?.n ?? 0
  } finally {
    await client.end()
  }
}

describe('warming up before listening', () => {
  it('says what it warmed, and the pool keeps its connections open', async () => {
    const [, loads = '0', signups = '0', connections] = WARMED.exec(server.output()) ?? []
    // 2,000 and 400 on a quiet machine; fewer when its half second runs out first (70 loads under
    // CI's full load), but both paths are taken, each answered as expected.
    expect(Number(loads.replaceAll(',', ''))).toBeGreaterThan(0)
    expect(Number(signups.replaceAll(',', ''))).toBeGreaterThan(0)
    expect(connections).toBe('10')
    expect(await clientBackends(server.dataDir)).toBeGreaterThanOrEqual(10)
    // With SMTP_URL, the mail's path too: 200 messages built in memory, or what its quarter second
    // allowed; none sent (below).
    const [, built = '0'] =
      /Warmed up the mail: (\d+) messages built in memory \(none sent\)/.exec(server.output()) ?? []
    expect(Number(built)).toBeGreaterThan(0)
  })

  it('keeps nothing of the warm-up: no visit, no row, no mail, no request in the log', async () => {
    // Past a few flushes of the counts, none: the warm-up's loads were never counted.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await directVisits()).toBe(0)
    const count = await runCli(server.env, 'count')
    expect(count.stdout).toMatch(/^0\b/m)
    expect(server.output()).not.toMatch(/GET \S*\/ 200/)
    expect(server.output()).not.toMatch(/POST \S*\/rest\/v1\/waitlist/)
    // A visitor's load is counted and logged as ever.
    const page = await fetch(`${server.url}/`, { headers: BROWSER })
    expect(page.status).toBe(200)
    await expect.poll(directVisits, { timeout: 10_000 }).toBe(1)
    expect(server.output()).toMatch(/GET \S*\/ 200/)
  })

  it('the refused inserts leave the signup as it was: a signup is stored and counted', async () => {
    const response = await fetch(`${server.url}/rest/v1/waitlist`, {
      method: 'POST',
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${server.anonKey}`,
        'content-type': 'application/json',
        prefer: 'return=minimal',
      },
      body: JSON.stringify({ email: 'first@example.com' }),
    })
    expect(response.status).toBe(201)
    const count = await runCli(server.env, 'count')
    expect(count.stdout).toMatch(/^1\b/m)
    // Its confirmation goes out, and it is the only message: the warm-up's were refused or built in memory.
    await expect.poll(() => sink.countFor('first@example.com'), { timeout: 10_000 }).toBe(1)
    expect(sink.received).toHaveLength(1)
  })
})

describe('/healthz while warming up', () => {
  it('answers 503 once listening, until the warm-up is done, then 200', async () => {
    const port = await freePort()
    let settled = false
    const starting = startTestServer({ env: { PORT: String(port), WARM_UP_MS: '3000' } }).finally(() => {
      settled = true
    })
    const seen: number[] = []
    const poll = async () => {
      while (seen.at(-1) !== 200) {
        const answer = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined)
        if (answer) seen.push(answer.status)
        if (answer?.status === 503) expect(await answer.json()).toEqual({ status: 'starting' })
        else if (!answer && settled) break
        else await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    const [warm] = await Promise.all([starting, poll()])
    try {
      expect(seen[0]).toBe(503)
      expect(seen.at(-1)).toBe(200)
      expect(warm.output()).toMatch(WARMED)
    } finally {
      await warm.cleanup()
    }
  })
})

/** A port nobody listens on now, for a server that must be reached before it says where. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()))
    })
  })
}
