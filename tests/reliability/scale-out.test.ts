import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { healthy, insertStatus, mixedCase, rowCount, storedEmails, tally } from './support'

afterAll(stopBackends)

const ADDRESSES = 40
const COPIES = 10
// As behind a load balancer: one secret, so one anon key works on either server.
const SHARED_SECRET = 'scale-out-test-secret-'.padEnd(48, 'x')

describe('scale-out: two server processes on one Postgres', () => {
  const servers: TestServer[] = []
  beforeAll(async () => {
    const url = await sharedPostgresUrl()
    // Started together: the migration advisory lock keeps them from migrating twice.
    servers.push(
      ...(await Promise.all([
        startTestServer({ env: { DATABASE_URL: url, JWT_SECRET: SHARED_SECRET } }),
        startTestServer({ env: { DATABASE_URL: url, JWT_SECRET: SHARED_SECRET } }),
      ])),
    )
  })
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.cleanup()))
  })

  it('the race split across both servers → exactly one row per address, both healthy', async () => {
    const [a, b] = servers as [TestServer, TestServer]
    expect(a.url).not.toBe(b.url)
    expect(a.anonKey).toBe(b.anonKey)
    const emails = Array.from({ length: ADDRESSES }, (_, i) => `scale.${i}@example.com`)
    const sends = emails.flatMap((email) =>
      Array.from({ length: COPIES }, (_, variant) =>
        insertStatus(variant % 2 ? a : b, mixedCase(email, variant)),
      ),
    )
    const counts = tally(await Promise.all(sends))
    console.log(`scale-out: ${sends.length} concurrent requests over 2 servers →`, counts)
    expect(counts).toEqual({ 201: ADDRESSES, 409: ADDRESSES * (COPIES - 1) })
    // One database behind both servers: counted once.
    expect(await rowCount(a)).toBe(ADDRESSES)
    expect((await storedEmails(a)).sort()).toEqual([...emails].sort())
    expect(await healthy(a)).toBe(true)
    expect(await healthy(b)).toBe(true)
  })
})
