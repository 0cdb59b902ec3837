import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import type { TestServer } from '../../harness/test-server'
import { expectNoEmail, healthy, insertStatus, mixedCase, rowCount, storedEmails, tally } from './support'

afterAll(stopBackends)

const ADDRESSES = 40
const COPIES = 10

describe.each(BACKENDS)('race on $name: the same address sent concurrently', ({ name }) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServerOn(name)
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  it(`${ADDRESSES} addresses × ${COPIES} concurrent sends in mixed case → one row each`, async () => {
    const emails = Array.from({ length: ADDRESSES }, (_, i) => `race.${i}.${name}@example.com`)
    const sends = emails.flatMap((email) =>
      Array.from({ length: COPIES }, (_, variant) => insertStatus(server, mixedCase(email, variant))),
    )
    const statuses = await Promise.all(sends)
    const counts = tally(statuses)
    console.log(`race on ${name}: ${sends.length} concurrent requests →`, counts)
    expect(counts).toEqual({ 201: ADDRESSES, 409: ADDRESSES * (COPIES - 1) })
    expect(await rowCount(server)).toBe(ADDRESSES)
    expect((await storedEmails(server)).sort()).toEqual([...emails].sort())
    expect(await healthy(server)).toBe(true)
    expectNoEmail(server.output())
  })
})
