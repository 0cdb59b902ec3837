import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { healthy, insert, rowCount } from './support'

const RUNS = 200

/** Bodies a confused or hostile client might send: any JSON, any text, and rows with odd emails. */
const bodies = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 300, unit: 'binary' }),
  fc.record({ email: fc.string({ maxLength: 300, unit: 'binary' }) }).map((row) => JSON.stringify(row)),
  fc.record({ email: fc.emailAddress() }).map((row) => JSON.stringify(row)),
  fc.record({ email: fc.jsonValue({ maxDepth: 2 }) }).map((row) => JSON.stringify(row)),
  fc
    .dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 })
    .map((row) => JSON.stringify(row)),
)

describe('fuzzing the insert on the embedded default', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  it(`${RUNS} random bodies: only 201 or 4xx, and the row count matches the 201s`, async () => {
    let expectedRows = 0
    const statuses: Record<number, number> = {}
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const response = await insert(server, body)
        await response.arrayBuffer()
        statuses[response.status] = (statuses[response.status] ?? 0) + 1
        const ok = response.status === 201 || (response.status >= 400 && response.status < 500)
        if (response.status === 201) {
          // An array inserts as many rows as it holds (possibly none).
          const parsed = JSON.parse(body) as unknown
          expectedRows += Array.isArray(parsed) ? parsed.length : 1
        }
        return ok
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 90_000 },
    )
    console.log(`fuzz: ${RUNS} runs →`, statuses, `${expectedRows} rows expected`)
    expect(await rowCount(server)).toBe(expectedRows)
    expect(await healthy(server)).toBe(true)
  })
})
