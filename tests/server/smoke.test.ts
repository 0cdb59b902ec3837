import { createClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startTestServer, type TestServer } from '../support/test-server'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.cleanup()
})

describe('the running server', () => {
  it('answers supabase-js inserts as hosted Supabase does', async () => {
    const supabase = createClient(server.url, server.anonKey, {
      realtime: { transport: WebSocket as never },
      auth: { persistSession: false },
    })
    const first = await supabase.from('waitlist').insert({ email: 'Smoke@Example.com' })
    expect(first.error).toBeNull()
    expect(first.status).toBe(201)
    const again = await supabase.from('waitlist').insert({ email: 'smoke@example.com' })
    expect(again.status).toBe(409)
    expect(again.error?.code).toBe('23505')
    expect(again.error?.message).toBe('duplicate key value violates unique constraint "waitlist_email_key"')
  })

  it('reports health', async () => {
    const response = await fetch(`${server.url}/healthz`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok' })
  })
})
