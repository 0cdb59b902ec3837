import { describe, expect, it } from 'vitest'
import { loadApiKeys } from '../../server/auth/api-keys'
import { createLogger } from '../../server/base/log'
import type { Database } from '../../server/db/database'
import { createApp } from '../../server/http/app'
import { stubSite } from '../support/stub-site'

async function appWith(query: Database['query']) {
  const db = { query } as unknown as Database
  const keys = await loadApiKeys({
    jwtSecret: 'x'.repeat(40),
    dataDir: '/nonexistent',
    databaseUrl: undefined,
  })
  return createApp({ db, keys, schema: new Map(), site: stubSite, log: createLogger('silent') })
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
})
