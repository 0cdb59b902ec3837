import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import type { TestServer } from '../../harness/test-server'
import { expectNoEmail, insertStatus, rowCount } from './support'

afterAll(stopBackends)

const STORED = Array.from({ length: 7 }, (_, i) => `hidden.person${i}@example.net`)

interface Shape {
  method: string
  path: string
  headers?: Record<string, string>
  body?: unknown
}

const READS = [
  '',
  '?select=*',
  '?select=email',
  '?select=id,email,created_at',
  '?select=count',
  '?select=email.count()',
  '?select=email::text',
  '?email=eq.hidden.person0@example.net',
  '?email=like.*',
  '?email=ilike.*hidden*',
  '?or=(email.neq.x,id.gt.0)',
  '?id=gt.0&order=email.desc&limit=1',
  '?limit=1&offset=3',
  '?select=*&apikey=ANON',
]

/** A write to the list with the anon key, asking for rows back in `prefer`'s way. */
const write = (method: string, query: string, prefer: string, email: string): Shape => ({
  method,
  path: `/rest/v1/waitlist${query}`,
  headers: { Prefer: prefer },
  body: { email },
})

const SHAPES: Shape[] = [
  ...READS.flatMap((query): Shape[] => [
    { method: 'GET', path: `/rest/v1/waitlist${query}` },
    { method: 'GET', path: `/rest/v1/waitlist${query}`, headers: { Prefer: 'count=exact', Range: '0-9' } },
    { method: 'HEAD', path: `/rest/v1/waitlist${query}`, headers: { Prefer: 'count=exact' } },
  ]),
  { method: 'HEAD', path: '/rest/v1/waitlist', headers: { Prefer: 'count=planned' } },
  { method: 'HEAD', path: '/rest/v1/waitlist', headers: { Prefer: 'count=estimated' } },
  { method: 'GET', path: '/rest/v1/waitlist', headers: { Accept: 'text/csv' } },
  { method: 'GET', path: '/rest/v1/waitlist', headers: { Accept: 'application/vnd.pgrst.object+json' } },
  { method: 'GET', path: '/rest/v1/waitlist', headers: { 'Accept-Profile': 'public' } },
  { method: 'GET', path: '/rest/v1/' },
  { method: 'GET', path: '/rest/v1/rpc/x' },
  { method: 'POST', path: '/rest/v1/rpc/x', body: {} },
  { method: 'POST', path: '/rest/v1/rpc/count', body: {} },
  { method: 'GET', path: '/rest/v1/rpc/waitlist' },
  { method: 'POST', path: '/rest/v1/rpc/redeem_invite', body: { code: 'x' } },
  { method: 'POST', path: '/rest/v1/rpc/redeem_invite', body: {} },
  { method: 'GET', path: '/rest/v1/rpc/redeem_invite?code=x' },
  write('POST', '', 'return=representation', 'probe.one@example.org'),
  write('POST', '?select=*', 'return=representation,count=exact', 'probe.two@example.org'),
  write('POST', '', 'return=headers-only', 'probe.three@example.org'),
  write(
    'POST',
    '?on_conflict=email',
    'resolution=merge-duplicates,return=representation',
    'HIDDEN.person1@example.net',
  ),
  write(
    'POST',
    '?on_conflict=email',
    'resolution=ignore-duplicates,return=representation',
    'hidden.person2@example.net',
  ),
  write('PATCH', '?id=gt.0', 'return=representation', 'overwrite@example.org'),
  { method: 'DELETE', path: '/rest/v1/waitlist?id=gt.0', headers: { Prefer: 'return=representation' } },
  { method: 'GET', path: '/rest/v1/waitlist?select=*', headers: { Authorization: 'Bearer ANON' } },
]

describe.each(BACKENDS)('no leak with the anon key on $name', ({ name }) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServerOn(name)
    for (const email of STORED) expect(await insertStatus(server, email)).toBe(201)
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  it(`${SHAPES.length} request shapes reveal no address and no row count`, async () => {
    const seen: string[] = []
    for (const shape of SHAPES) {
      const url = `${server.url}${shape.path.replace('ANON', server.anonKey)}`
      const headers: Record<string, string> = { apikey: server.anonKey, 'Content-Type': 'application/json' }
      for (const [key, value] of Object.entries(shape.headers ?? {}))
        headers[key] = value.replace('ANON', server.anonKey)
      const response = await fetch(url, {
        method: shape.method,
        headers,
        body: shape.body === undefined ? undefined : JSON.stringify(shape.body),
      })
      const label = `${shape.method} ${shape.path} ${JSON.stringify(shape.headers ?? {})}`
      const body = (await response.text()).toLowerCase()
      const headerText = [...response.headers]
        .map(([key, value]) => `${key}: ${value}`)
        .join('\n')
        .toLowerCase()
      seen.push(`${response.status} ${label}`)
      // The request's own address may come back (a 409 names it); no other stored one may.
      const sent = JSON.stringify(shape.body ?? '').toLowerCase() + shape.path.toLowerCase()
      for (const email of STORED) {
        if (sent.includes(email)) continue
        expect(body, label).not.toContain(email)
        expect(body, label).not.toContain(email.split('@')[0])
        expect(headerText, label).not.toContain(email.split('@')[0])
      }
      const range = response.headers.get('content-range')
      if (range) expect(range, label).toMatch(/\/\*$/)
      expect(response.headers.get('location') ?? '', label).not.toMatch(/id=/)
      expect(response.status, label).toBeLessThan(500)
    }
    const statuses = seen.map((line) => line.slice(0, 3))
    console.log(
      `leak on ${name}: ${SHAPES.length} shapes →`,
      Object.fromEntries(statuses.map((s) => [s, statuses.filter((t) => t === s).length])),
    )
    // Nothing those requests tried changed the table.
    expect(await rowCount(server)).toBe(STORED.length + (await probesStored(server)))
    expectNoEmail(server.output())
  })
})

/** Probe inserts that anon may legitimately make (return=headers-only is an insert without reading). */
async function probesStored(server: TestServer): Promise<number> {
  let stored = 0
  for (const probe of ['probe.one@example.org', 'probe.two@example.org', 'probe.three@example.org']) {
    if ((await insertStatus(server, probe)) === 409) stored++
  }
  return stored
}
