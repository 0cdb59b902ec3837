import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { TestServer } from './test-server'
import { postWaitlist } from './waitlist-api'

/**
 * A scripted launch day against a server started with TRUST_PROXY_HEADER=x-forwarded-for (so each
 * simulated person has an address of their own): readers from Hacker News (its link has no UTM
 * tags), X and LinkedIn (tagged links), a few direct loads, crawlers and prefetches that must not
 * count, people with Global Privacy Control on, and signups through the page's insert, the
 * no-script form and an MCP client. Returns what a correct count must show.
 */

const BROWSERS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:143.0) Gecko/20100101 Firefox/143.0',
]
const BOTS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot',
  'curl/8.14.1',
  'python-requests/2.32.4',
]

interface Audience {
  /** How the source shows in the report. */
  source: string
  path: string
  referer?: string
  people: number
  /** Of those, how many load the page a second time (the browser revalidates: 304). */
  reloads: number
  /** Of those, how many send Sec-GPC: 1 (a visit, not a visitor). */
  privacy: number
}

const AUDIENCES: Audience[] = [
  {
    source: 'news.ycombinator.com',
    path: '/',
    referer: 'https://news.ycombinator.com/item?id=46000001',
    people: 90,
    reloads: 20,
    privacy: 6,
  },
  {
    source: 'x',
    path: '/?utm_source=x&utm_medium=social&utm_campaign=launch',
    referer: 'https://t.co/4bQz',
    people: 50,
    reloads: 8,
    privacy: 2,
  },
  {
    source: 'linkedin',
    path: '/?utm_source=LinkedIn&utm_medium=social&utm_campaign=launch',
    people: 30,
    reloads: 3,
    privacy: 0,
  },
  { source: 'direct', path: '/', people: 12, reloads: 0, privacy: 0 },
]

export interface Expected {
  source: string
  visits: number
  visitors: number
  signups: number
}

function person(audience: number, index: number, extra: Record<string, string> = {}) {
  return {
    'user-agent': BROWSERS[index % BROWSERS.length] ?? '',
    'x-forwarded-for': `100.64.${audience}.${index + 1}`,
    ...extra,
  }
}

async function load(server: TestServer, path: string, headers: Record<string, string>): Promise<Response> {
  const response = await fetch(`${server.url}${path}`, { headers })
  await response.arrayBuffer()
  return response
}

/** Every person of every audience loads the page; some again; bots and prefetches besides. */
async function visits(server: TestServer): Promise<void> {
  for (const [number, audience] of AUDIENCES.entries()) {
    for (let index = 0; index < audience.people; index++) {
      const extra: Record<string, string> = audience.referer ? { referer: audience.referer } : {}
      if (index < audience.privacy) extra['sec-gpc'] = '1'
      const first = await load(server, audience.path, person(number, index, extra))
      const etag = first.headers.get('etag') ?? ''
      // A reload sends what the first load sent (its Referer, its GPC), and asks whether the page changed.
      const again = person(number, index, { ...extra, 'if-none-match': etag })
      if (index < audience.reloads) await load(server, audience.path, again)
    }
  }
  for (const [index, bot] of BOTS.entries())
    for (const audience of AUDIENCES)
      await load(server, audience.path, { 'user-agent': bot, 'x-forwarded-for': `192.0.2.${index}` })
  for (let index = 0; index < 10; index++)
    await load(server, AUDIENCES[1]?.path ?? '/', person(1, index, { 'sec-purpose': 'prefetch' }))
}

async function mcpSignup(server: TestServer, client: string, email: string): Promise<void> {
  const agent = new Client({ name: client, version: '1.0.0' })
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
  await agent.callTool({ name: 'request_beta_access', arguments: { email } })
  await agent.close()
}

/** X readers sign up on the page, LinkedIn readers with scripts off, HN readers on the page; agents by MCP. */
async function signups(server: TestServer): Promise<void> {
  const page = (audience: number) => `${server.url}${AUDIENCES[audience]?.path ?? '/'}`
  for (let index = 0; index < 7; index++) {
    const headers = person(1, index, { referer: page(1) })
    await postWaitlist(server, { email: `x.reader.${index}@example.com` }, headers)
  }
  for (let index = 0; index < 4; index++) {
    await fetch(`${server.url}/`, {
      method: 'POST',
      headers: person(2, index, { referer: page(2) }),
      body: new URLSearchParams({ email: `linkedin.reader.${index}@example.com` }),
      redirect: 'manual',
    })
  }
  // The HN link carried no tags: the page's own address is plain, and their signups count as direct.
  for (let index = 0; index < 9; index++) {
    await postWaitlist(
      server,
      { email: `hn.reader.${index}@example.com` },
      person(0, index, { referer: page(0) }),
    )
  }
  await mcpSignup(server, 'claude-ai', 'agent.one@example.com')
  await mcpSignup(server, 'claude-ai', 'agent.two@example.com')
  await mcpSignup(server, 'cursor', 'agent.three@example.com')
}

export async function launchDay(server: TestServer): Promise<Expected[]> {
  await visits(server)
  await signups(server)
  const visitsOf = (audience: Audience) => audience.people + audience.reloads
  const visitorsOf = (audience: Audience) => audience.people - audience.privacy
  const [hn, x, linkedin, direct] = AUDIENCES.map((audience) => ({
    source: audience.source,
    visits: visitsOf(audience),
    visitors: visitorsOf(audience),
  })) as [
    Omit<Expected, 'signups'>,
    Omit<Expected, 'signups'>,
    Omit<Expected, 'signups'>,
    Omit<Expected, 'signups'>,
  ]
  return [
    { ...direct, signups: 9 },
    { ...x, signups: 7 },
    { ...linkedin, signups: 4 },
    { source: 'mcp', visits: 0, visitors: 0, signups: 3 },
    { ...hn, signups: 0 },
  ]
}
