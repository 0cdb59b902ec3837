import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SmtpSink, startSmtpSink } from '../../harness/smtp-sink'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { runningClusterUrl } from '../../server/db/embedded/embedded-cluster'

/**
 * WARM_UP (ADR 102): before it listens the server rehearses its page over loopback and readies
 * every connection of its pool with the signup's insert, rolled back. The test servers turn it off;
 * here it runs as shipped, and nothing of it may show: no visit, no row, no log line of a request.
 */
const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
}
const WARMED =
  /Warmed up before listening: ([\d,]+) page loads and ([\d,]+) signups rehearsed in [\d.]+ s \(nothing kept\), (\d+) database connections ready/

let server: TestServer
let sink: SmtpSink

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({
    env: {
      ...{ WARM_UP: 'true', LOG_LEVEL: 'info', COUNT_SOURCES_FLUSH_MS: '100' },
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
    // CI's full load), but both paths are taken, each answered 2xx.
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

  it('keeps nothing of the rehearsal: no visit, no row, no mail, no request in the log', async () => {
    // Past a few flushes of the counts, none: the rehearsal's loads were never counted.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await directVisits()).toBe(0)
    const count = await runCli(server.env, 'count')
    expect(count.stdout).toMatch(/^0\b/m)
    expect(server.output()).not.toMatch(/GET \S*\/ 200/)
    // A visitor's load is counted and logged as ever.
    const page = await fetch(`${server.url}/`, { headers: BROWSER })
    expect(page.status).toBe(200)
    await expect.poll(directVisits, { timeout: 10_000 }).toBe(1)
    expect(server.output()).toMatch(/GET \S*\/ 200/)
  })

  it('the rolled-back inserts leave the signup as it was: a signup is stored and counted', async () => {
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
    // Its confirmation goes out, and it is the only message: the rehearsal's were rolled back or built in memory.
    await expect.poll(() => sink.countFor('first@example.com'), { timeout: 10_000 }).toBe(1)
    expect(sink.received).toHaveLength(1)
  })
})

describe('WARM_UP=false', () => {
  it('listens at once, with no rehearsal and no pool held open', async () => {
    const cold = await startTestServer({ env: { WARM_UP: 'false', LOG_LEVEL: 'info' } })
    try {
      expect(cold.output()).not.toMatch(WARMED)
      expect(await clientBackends(cold.dataDir)).toBeLessThan(10)
    } finally {
      await cold.cleanup()
    }
  })
})
