import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryStore } from '../../server/rate-limit/memory-store'
import { PostgresStore } from '../../server/rate-limit/postgres-store'
import { sharedPostgres } from '../support/file-server'

// A rate so slow that nothing refills while the test runs: the database's clock cannot be stopped.
const LIMITS = { perMinute: 0.0001, burst: 7 }

describe('the database store takes what the memory store takes (postgres backend)', () => {
  const shared = sharedPostgres(2)
  let database: PostgresStore
  beforeAll(() => {
    database = new PostgresStore(shared.db, LIMITS)
  })
  afterAll(() => database?.close())

  it('the same answers, refusal or not, over a long mixed sequence of single writes and arrays', async () => {
    const memory = new MemoryStore({ ...LIMITS, now: () => 0 })
    // A fixed walk of requests: 1 token, or 1 and then up to 4 more (an array), on three addresses.
    let seed = 7
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed
    }
    for (let i = 0; i < 60; i++) {
      const key = `198.51.100.${next() % 3}`
      const extra = next() % 3 === 0 ? next() % 5 : 0
      const inMemory = memory.take(key, 1 + extra) > 0
      const inDatabase = (await database.take(key, 1 + extra)) > 0
      expect(inDatabase, `request ${i}: ${key}, 1 + ${extra}`).toBe(inMemory)
    }
  })
})
