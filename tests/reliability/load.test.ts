import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { expectNoEmail, healthy, insertStatus, pool, rowCount, rssKiB, tally } from './support'

const INSERTS = 2000
const CLIENTS = 50

describe('load on the embedded default', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  it(`${INSERTS} inserts from ${CLIENTS} concurrent clients: every one 201, exact row count`, async () => {
    const before = rssKiB(server)
    const tasks = Array.from(
      { length: INSERTS },
      (_, i) => () => insertStatus(server, `load.${i}@example.com`),
    )
    const statuses = await pool(CLIENTS, tasks)
    const after = rssKiB(server)
    console.log(
      `load: ${INSERTS} inserts, ${CLIENTS} clients →`,
      tally(statuses),
      `server RSS ${(before / 1024).toFixed(1)} MiB before, ${(after / 1024).toFixed(1)} MiB after`,
    )
    expect(tally(statuses)).toEqual({ 201: INSERTS })
    expect(await rowCount(server)).toBe(INSERTS)
    expect(await healthy(server)).toBe(true)
    expect(Number.isFinite(before) && Number.isFinite(after)).toBe(true)
    expectNoEmail(server.output())
  })
})
