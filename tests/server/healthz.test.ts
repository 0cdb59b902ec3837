import { describe, expect, it } from 'vitest'
import { loadApiKeys } from '../../server/auth/api-keys'
import { createLogger } from '../../server/base/log'
import type { Database } from '../../server/db/database'
import { createApp, type StartUp } from '../../server/http/app'
import { stubSite } from '../support/stub-site'

async function appWith(query: Database['query'], startUp?: StartUp) {
  const db = { query } as unknown as Database
  const keys = await loadApiKeys({
    jwtSecret: 'x'.repeat(40),
    dataDir: '/nonexistent',
    databaseUrl: undefined,
  })
  return createApp({ db, keys, schema: new Map(), site: stubSite, log: createLogger('silent'), startUp })
}

describe('GET /healthz', () => {
  it('is 200 when the database answers', async () => {
    const app = await appWith(async () => [{ '?column?': 1 }] as never)
    const response = await app.request('/healthz')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok' })
  })

  it('is 503 when it does not', async () => {
    const app = await appWith(async () => {
      throw new Error('connection refused')
    })
    const response = await app.request('/healthz')
    expect(response.status).toBe(503)
    expect(await response.json()).toEqual({ status: 'unavailable' })
  })

  it('is 503 until the warm-up is done, and asks nothing of the database meanwhile', async () => {
    let ready = false
    let asked = 0
    const query = async () => {
      asked++
      return [{ '?column?': 1 }] as never
    }
    const app = await appWith(query, { ready: () => ready, token: 'x' })
    const starting = await app.request('/healthz')
    expect(starting.status).toBe(503)
    expect(starting.headers.get('retry-after')).toBe('1')
    expect(await starting.json()).toEqual({ status: 'starting' })
    expect(asked).toBe(0)
    ready = true
    expect((await app.request('/healthz')).status).toBe(200)
  })
})
