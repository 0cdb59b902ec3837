import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stopBackends } from '../../harness/backends'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { requestAccessOverMcp } from '../support/mcp-raw'

/**
 * The studio's Name column (issue 64, item 2): each row carries the person's name, the list sorts
 * by it both ways (the unnamed last), and a search finds a person by their name as by their address.
 */
let server: TestServer
let studio: StudioProcess

// Named through the agent's tool (no confirmation: kept at once); one left unnamed.
const PEOPLE: [string, string | undefined][] = [
  ['zed@example.com', 'Ada Lovelace'],
  ['yan@example.com', 'grace Hopper'],
  ['xu@example.com', 'Barbara Liskov'],
  ['wu@example.com', undefined],
]

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } })
  for (const [email, name] of PEOPLE) {
    if (name) expect(await requestAccessOverMcp(server.url, email, { name })).toContain('"submitted"')
    else expect((await postWaitlist(server, { email })).status).toBe(201)
  }
  studio = await startStudioProcess(server.env)
})

afterAll(async () => {
  await studio?.stop()
  await server?.cleanup()
  await stopBackends()
})

async function entries(query: string): Promise<{ email: string; name: string }[]> {
  const response = await fetch(`${studio.origin}/api/entries?${query}`, {
    headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
  })
  expect(response.status, query).toBe(200)
  return ((await response.json()) as { entries: { email: string; name: string }[] }).entries
}

describe('the studio’s Name column', () => {
  it('carries each person’s name, and sorts by it in any letter case, the unnamed last', async () => {
    expect(await entries('sort=name&order=asc')).toEqual([
      expect.objectContaining({ email: 'zed@example.com', name: 'Ada Lovelace' }),
      expect.objectContaining({ email: 'xu@example.com', name: 'Barbara Liskov' }),
      expect.objectContaining({ email: 'yan@example.com', name: 'grace Hopper' }),
      expect.objectContaining({ email: 'wu@example.com', name: '' }),
    ])
    const descending = (await entries('sort=name&order=desc')).map((entry) => entry.email)
    expect(descending).toEqual(['yan@example.com', 'xu@example.com', 'zed@example.com', 'wu@example.com'])
  })

  it('is searched as the address is: a part of the name, or its start', async () => {
    const found = async (search: string) =>
      (await entries(`q=${encodeURIComponent(search)}`)).map((entry) => entry.email).sort()
    expect(await found('lovel')).toEqual(['zed@example.com'])
    expect(await found('HOPPER')).toEqual(['yan@example.com'])
    expect(await found('ba')).toEqual(['xu@example.com'])
    // The address still finds its own, and a search that matches both finds each once.
    expect(await found('wu@')).toEqual(['wu@example.com'])
    expect(await found('a')).toEqual(['zed@example.com'])
  })
})
