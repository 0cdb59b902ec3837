import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../server/db/database'
import { openPostgres } from '../../server/db/postgres-driver'
import { MemoryRateLimiter } from '../../server/http/middleware/memory-rate-limiter'
import { PostgresRateLimiter } from '../../server/http/middleware/postgres-rate-limiter'
import { sharedPostgresUrl, stopBackends } from '../support/backends'

// A rate so slow that nothing refills while the test runs: the database's clock cannot be stopped.
const LIMITS = { perMinute: 0.0001, burst: 7 }

describe('the database limiter takes what the memory limiter takes (postgres backend)', () => {
  let db: Database
  let database: PostgresRateLimiter
  beforeAll(async () => {
    db = await openPostgres(await sharedPostgresUrl(), 2)
    database = new PostgresRateLimiter(db, LIMITS)
  })
  afterAll(async () => {
    database?.close()
    await db?.close()
    await stopBackends()
  })

  it('the same answers, refusal or not, over a long mixed sequence of single writes and arrays', async () => {
    const memory = new MemoryRateLimiter({ ...LIMITS, now: () => 0 })
    // A fixed walk of requests: 1 token, or 1 and then up to 4 more (an array), on three addresses.
    let seed = 7
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed
    }
    for (let i = 0; i < 60; i++) {
      const key = `198.51.100.${next() % 3}`
      const extra = next() % 3 === 0 ? next() % 5 : 0
      const inMemory = memory.take(key, 1, extra) > 0
      const inDatabase = (await database.take(key, 1, extra)) > 0
      expect(inDatabase, `request ${i}: ${key}, 1 + ${extra}`).toBe(inMemory)
    }
  })

  it('a charge inside a write stays when the write fails, and a refused one stops the write', async () => {
    const key = '198.51.100.50'
    const insert = (email: string) =>
      db.runAsRole(
        { role: 'anon' },
        { sql: 'insert into public.waitlist (email) values ($1)', params: [email] },
        database.chargeInWrite(key, 1),
      )
    await insert('charged.1@example.com')
    // A duplicate fails (23505) but its token is spent, as the memory limiter spends it.
    await expect(insert('Charged.1@example.com')).rejects.toMatchObject({ code: '23505' })
    for (let i = 2; i <= 6; i++) await insert(`charged.${i}@example.com`)
    await expect(insert('charged.7@example.com')).rejects.toMatchObject({ code: 'PT429' })
    const [row] = await db.query<{ n: number }>(
      "select count(*)::int as n from public.waitlist where email::text like 'charged.%'",
    )
    expect(row?.n).toBe(6)
  })
})
