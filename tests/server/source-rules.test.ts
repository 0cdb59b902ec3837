import { describe, expect, it } from 'vitest'
import { plural } from '../../owner/cli/plural'
import { percent, renderCampaigns, renderSources } from '../../owner/cli/sources'
import { CountBuffer, OTHER, OverflowSketch, planDay } from '../../server/analytics/count-buffer'
import {
  RecentSources,
  type SignupDoor,
  SourceCounter,
  visitorBit,
} from '../../server/analytics/source-counter'
import {
  cleanSource,
  cleanTag,
  DIRECT,
  declinesTracking,
  isBrowser,
  isVisit,
  MAX_TAG_LENGTH,
  McpClients,
  signupSource,
  siteHost,
  visitSource,
} from '../../server/analytics/source-of'
import { conversionOf, kindOf, type SourceCounts } from '../../server/analytics/sources-report'
import type { Database } from '../../server/db/database'
import { rateLimitKey } from '../../server/rate-limit/client-address'

/** The rules of counting by source, function by function, with no server and no database. */

const own = (host: string) => host === 'lab.example.com'
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'

describe('where a visit or a signup came from', () => {
  it('takes utm_source lowercased first, then another site’s host without www., else direct', () => {
    const url =
      'https://lab.example.com/?utm_source=Hacker%20News&utm_medium=Social&utm_campaign=Launch%20day'
    expect(visitSource(url, 'https://t.co/x', own)).toEqual({
      source: 'hacker news',
      medium: 'Social',
      campaign: 'Launch day',
    })
    expect(visitSource('https://lab.example.com/', 'https://WWW.LinkedIn.com/feed/', own).source).toBe(
      'linkedin.com',
    )
    expect(visitSource('https://lab.example.com/', 'https://www.lab.example.com/x', own)).toEqual(DIRECT)
    expect(visitSource('https://lab.example.com/?utm_source=%20', undefined, own)).toEqual(DIRECT)
    // Only web pages refer: an app's or a file's "referrer" is direct.
    for (const referer of [
      'android-app://com.google.android.gm/',
      'file:///tmp/x.html',
      'not a url',
      'https://',
    ])
      expect(visitSource('https://lab.example.com/', referer, own), referer).toEqual(DIRECT)
  })

  it('reads ref, via and source as utm_source when it is absent, in that order', () => {
    const source = (query: string) => visitSource(`https://lab.example.com/?${query}`, undefined, own)
    expect(source('ref=Podcast&utm_medium=audio')).toEqual({
      source: 'podcast',
      medium: 'audio',
      campaign: '',
    })
    expect(source('via=newsletter').source).toBe('newsletter')
    expect(source('source=hn').source).toBe('hn')
    expect(source('source=hn&via=x&ref=podcast').source).toBe('podcast')
    expect(source('via=x&source=hn').source).toBe('x')
    expect(source('ref=podcast&utm_source=hn').source).toBe('hn')
    // An empty one is absent; a reserved name counts as none at all.
    expect(source('utm_source=%20&ref=podcast').source).toBe('podcast')
    expect(source('ref=mcp&via=x')).toEqual(DIRECT)
    expect(visitSource('https://lab.example.com/?ref=', 'https://t.co/x', own).source).toBe('t.co')
    expect(signupSource('https://lab.example.com/?ref=Podcast', own).source).toBe('podcast')
  })

  it('reads a signup’s tags from the page that sent it; another site’s page is that site', () => {
    expect(signupSource('https://lab.example.com/?utm_source=X&utm_campaign=launch#about', own)).toEqual({
      source: 'x',
      medium: '',
      campaign: 'launch',
    })
    expect(signupSource('https://lab.example.com/', own)).toEqual(DIRECT)
    expect(signupSource(undefined, own)).toEqual(DIRECT)
    expect(signupSource('https://partner.example.org/?utm_source=x', own).source).toBe('partner.example.org')
  })

  it('stores no control character, nothing longer than the cap, and no half of a character', () => {
    expect(cleanTag(' a\u0000b\nc\u0085 ')).toBe('abc')
    expect(cleanTag('x'.repeat(500))).toHaveLength(MAX_TAG_LENGTH)
    const cut = cleanTag(`${'x'.repeat(MAX_TAG_LENGTH - 1)}😀`)
    expect(cut).toBe('x'.repeat(MAX_TAG_LENGTH - 1))
    expect(siteHost('HTTPS://News.YCombinator.com:443/item')).toBe('news.ycombinator.com')
  })

  it('drops invisible and direction-control characters and normalises, so no two rows print alike', () => {
    const source = (query: string) => visitSource(`https://lab.example.com/?${query}`, undefined, own).source
    // A zero-width space, a word joiner, a BOM, a soft hyphen: still hn.
    for (const tail of ['%E2%80%8B', '%E2%81%A0', '%EF%BB%BF', '%C2%AD', '%E3%85%A4'])
      expect(source(`utm_source=hn${tail}`), tail).toBe('hn')
    // A right-to-left override cannot make twitter.com out of moc.rettiwt: it prints as sent.
    expect(source('utm_source=%E2%80%AEmoc.rettiwt')).toBe('moc.rettiwt')
    expect(source('utm_source=%E2%81%A7moc.rettiwt%E2%81%A9')).toBe('moc.rettiwt')
    // Full-width letters, a black-letter capital, a no-break space around: NFKC, then lowercase.
    expect(source('utm_source=%EF%BC%A8%EF%BC%AE')).toBe('hn')
    expect(source('utm_source=%E2%84%8Cn')).toBe('hn')
    expect(source('utm_source=%C2%A0hn%E3%80%80')).toBe('hn')
    expect(cleanTag('Launch\u200Bday\u202E')).toBe('Launchday')
    // Lowercasing can lengthen a name: it still fits the table's check.
    expect(cleanSource('İ'.repeat(100)).length).toBeLessThanOrEqual(MAX_TAG_LENGTH)
    expect(cleanSource('ℐ\u0307'.repeat(100)).length).toBeLessThanOrEqual(MAX_TAG_LENGTH)
    expect(cleanSource('ℐ\u0307')).toBe('i\u0307')
  })

  it('leaves the rows the server makes itself to the server: (other), (api) and mcp are not a link’s', () => {
    for (const name of ['(other)', '(API)', 'mcp', 'mcp%E2%80%8B'])
      expect(visitSource(`https://lab.example.com/?utm_source=${name}`, undefined, own), name).toEqual(DIRECT)
    expect(visitSource('https://lab.example.com/', 'http://mcp/', own)).toEqual(DIRECT)
  })
})

describe('a signup’s source, named before its insert', () => {
  // Never started: naming a signup reads the request alone, and touches no database.
  const counter = () =>
    new SourceCounter({
      db: {} as Database,
      log: { info: () => {}, error: () => {} },
      siteOrigins: () => ['https://lab.example.com'],
      flushMs: 60_000,
    })
  const hit = (headers: Record<string, string>, address = '192.0.2.1') => ({
    request: new Request('https://lab.example.com/rest/v1/waitlist', { method: 'POST', headers }),
    address: () => address,
  })
  const named = (sources: SourceCounter, door: SignupDoor, headers: Record<string, string>) =>
    sources.sourceOfSignup(hit(headers), door)

  it('names a browser’s signup by its page’s utm_source, else the referring site, else direct', () => {
    const sources = counter()
    for (const door of ['rest', 'form'] as const) {
      const from = (referer?: string) =>
        named(sources, door, referer ? { 'user-agent': CHROME, referer } : { 'user-agent': CHROME })
      expect(from('https://lab.example.com/?utm_source=HN&utm_medium=social&utm_campaign=launch')).toEqual({
        source: 'hn',
        medium: 'social',
        campaign: 'launch',
      })
      expect(from('https://www.partner.example.org/page').source).toBe('partner.example.org')
      expect(from('https://lab.example.com/')).toEqual(DIRECT)
      expect(from()).toEqual(DIRECT)
      // A link cannot name a row the server keeps for itself.
      expect(from('https://lab.example.com/?utm_source=mcp')).toEqual(DIRECT)
    }
  })

  it('names a script’s, an HTTP library’s or a headless browser’s signup (api), whatever page it names', () => {
    const sources = counter()
    const tagged = { referer: 'https://lab.example.com/?utm_source=x' }
    for (const door of ['rest', 'form'] as const) {
      expect(named(sources, door, tagged).source).toBe('(api)')
      for (const ua of ['curl/8.14.1', 'python-requests/2.32', 'HeadlessChrome/141.0'])
        expect(named(sources, door, { ...tagged, 'user-agent': ua }).source, ua).toBe('(api)')
    }
  })

  it('names an agent’s signup mcp, with the client’s name from its initialize when this server saw it', () => {
    const sources = counter()
    const agent = { 'user-agent': 'node' }
    expect(named(sources, 'mcp', agent)).toEqual({ source: 'mcp', medium: '', campaign: '' })
    sources.rememberMcpClient(hit(agent), { clientInfo: { name: 'claude-ai', version: '1' } })
    expect(named(sources, 'mcp', agent)).toEqual({ source: 'mcp', medium: 'claude-ai', campaign: '' })
    expect(sources.sourceOfSignup(hit(agent, '192.0.2.2'), 'mcp').medium).toBe('')
    // The page's Referer names nothing at this door.
    expect(named(sources, 'mcp', { ...agent, referer: 'https://lab.example.com/?utm_source=x' }).source).toBe(
      'mcp',
    )
  })
})

describe('what a visit is', () => {
  const headers = (extra: Record<string, string> = {}) => new Headers({ 'user-agent': CHROME, ...extra })
  it('is a GET of the page, answered 200 or 304, by a browser, not speculative', () => {
    expect(isVisit('GET', 200, 'https://lab.example.com/', headers())).toBe(true)
    expect(isVisit('GET', 304, 'https://lab.example.com/', headers())).toBe(true)
    expect(isVisit('HEAD', 200, 'https://lab.example.com/', headers())).toBe(false)
    expect(isVisit('GET', 404, 'https://lab.example.com/', headers())).toBe(false)
    expect(isVisit('GET', 414, 'https://lab.example.com/', headers())).toBe(false)
    expect(isVisit('GET', 200, 'https://lab.example.com/?waitlist=error', headers())).toBe(false)
    expect(isVisit('GET', 200, 'https://lab.example.com/', headers({ 'x-moz': 'prefetch' }))).toBe(false)
    expect(isVisit('GET', 200, 'https://lab.example.com/', new Headers())).toBe(false)
    for (const bot of ['curl/8.14.1', 'Mozilla/5.0 (compatible; bingbot/2.0)', 'GPTBot/1.2'])
      expect(isVisit('GET', 200, 'https://lab.example.com/', headers({ 'user-agent': bot })), bot).toBe(false)
  })

  it('reads the first 512 characters of a User-Agent: a 15 KB one is judged by its head', () => {
    const tail = 'x'.repeat(15 * 1024)
    expect(isBrowser(headers({ 'user-agent': `${CHROME} ${tail}` }))).toBe(true)
    expect(isBrowser(headers({ 'user-agent': `Googlebot/2.1 ${tail}` }))).toBe(false)
    expect(isBrowser(headers({ 'user-agent': 'HeadlessChrome/141.0' }))).toBe(false)
    expect(isBrowser(new Headers())).toBe(false)
  })

  it('honours Global Privacy Control and Do Not Track, and only their "1"', () => {
    expect(declinesTracking(headers({ 'sec-gpc': '1' }))).toBe(true)
    expect(declinesTracking(headers({ dnt: '1' }))).toBe(true)
    expect(declinesTracking(headers({ dnt: '0' }))).toBe(false)
    expect(declinesTracking(headers())).toBe(false)
  })

  it('marks one bit per visitor and day, another with another salt', () => {
    const bit = visitorBit('aa'.repeat(32), '2024-01-15', '192.0.2.1', CHROME)
    expect(visitorBit('aa'.repeat(32), '2024-01-15', '192.0.2.1', CHROME)).toBe(bit)
    expect(bit).toBeGreaterThanOrEqual(0)
    expect(bit).toBeLessThan(65_536)
    const others = ['bb', 'cc', 'dd', 'ee'].map((salt) =>
      visitorBit(salt.repeat(32), '2024-01-15', '192.0.2.1', CHROME),
    )
    expect(others.some((other) => other !== bit)).toBe(true)
  })
})

describe('what the server holds in memory', () => {
  it('keeps the heaviest sources of a day in its buffer (Space-Saving), the rest in (other); a failed write goes back whole', () => {
    const buffer = new CountBuffer(2)
    const add = (source: string, times: number) => {
      for (let index = 0; index < times; index++) buffer.addVisit('2024-01-15', { ...DIRECT, source }, 7)
    }
    add('heavy', 5)
    for (const source of ['a', 'b', 'c', 'd']) add(source, 1)
    buffer.addSignups('2024-01-15', { ...DIRECT, source: 'e' }, 2)
    const taken = buffer.take()
    expect(buffer.isEmpty).toBe(true)
    const tallies = taken.get('2024-01-15') ?? []
    const counts = Object.fromEntries(
      tallies.map((tally) => [tally.key.source, [tally.visits, tally.signups]]),
    )
    // The heavy source keeps its name; the newest takes the lightest's place, which goes to (other).
    expect(counts).toEqual({ heavy: [5, 0], e: [0, 2], [OTHER.source]: [4, 0] })
    // Its floor: the weight of the place it took (each newcomer's estimate climbs by one): d's 3 + 1.
    expect(tallies.find((tally) => tally.key.source === 'e')?.floor).toBe(4)
    buffer.addVisit('2024-01-15', { ...DIRECT, source: 'heavy' }, 9)
    buffer.putBack(taken)
    const again = buffer.take().get('2024-01-15') ?? []
    const heavy = again.find((tally) => tally.key.source === 'heavy')
    expect(heavy?.visits).toBe(6)
    // Bits 7 and 9: in the first byte and the second.
    expect([...(heavy?.bits?.subarray(0, 2) ?? [])]).toEqual([0b0000_0001, 0b0100_0000])
  })

  it('estimates what each source put under (other) never below the truth, in bounded memory', () => {
    const sketch = new OverflowSketch(10)
    sketch.add('newsletter', 3)
    for (let index = 0; index < 1000; index++) sketch.add(`junk-${index}`, 1)
    sketch.add('newsletter', 1)
    // 1,004 units through 10 places: an estimate is at most 1004 / 10 above the truth.
    expect(sketch.estimate('newsletter')).toBeGreaterThanOrEqual(1)
    expect(sketch.estimate('newsletter')).toBeLessThanOrEqual(1 + 1004 / 10 + 1)
    expect(sketch.estimate('junk-999')).toBeGreaterThanOrEqual(1)
    sketch.forget('newsletter')
    expect(sketch.estimate('newsletter')).toBe(0)
  })

  it('gives a full day’s lightest row to a busier source only, and moves that row’s counts to (other)', () => {
    const key = (source: string) => ({ ...DIRECT, source })
    const tally = (source: string, visits: number) => ({ key: key(source), visits, signups: 0, floor: 0 })
    const stored = [
      { key: key('newsletter'), weight: 20, stored: true },
      { key: key('junk-1'), weight: 1, stored: true },
    ]
    const sketch = new OverflowSketch()
    // As light as the lightest row: (other). Busier: it takes junk-1's row.
    let plan = planDay([tally('junk-2', 1), tally('hn', 2)], stored, sketch, 2)
    expect(plan.takenOver).toEqual([key('junk-1')])
    expect(plan.rows.map((row) => [row.key.source, row.visits])).toEqual([
      ['hn', 2],
      ['(other)', 1],
    ])
    expect(plan.overflow).toEqual([
      ['junk-1\n\n', 1],
      ['junk-2\n\n', 1],
    ])
    // One visit at a time adds up: what the sketch remembers under (other) counts toward a takeover.
    sketch.add('late\n\n', 1)
    plan = planDay(
      [tally('late', 1), { key: key('(api)'), visits: 0, signups: 4, floor: 0 }],
      stored,
      sketch,
      2,
    )
    expect(plan.takenOver).toEqual([key('junk-1')])
    expect(plan.named).toEqual(['late\n\n'])
    expect(plan.rows.map((row) => row.key.source).sort()).toEqual(['(api)', 'late'])
  })

  it('keys rate-limit buckets by a fixed size, whatever a trusted header carries', () => {
    expect(rateLimitKey('203.0.113.9')).toBe('203.0.113.9')
    expect(rateLimitKey('unknown')).toBe('unknown')
    const long = rateLimitKey('x'.repeat(15 * 1024))
    expect(long.length).toBeLessThan(64)
    expect(rateLimitKey('X'.repeat(15 * 1024))).toBe(long)
    expect(rateLimitKey('y'.repeat(15 * 1024))).not.toBe(long)
  })

  it('remembers recent sources and MCP clients within bounds', () => {
    const recent = new RecentSources()
    let resolved = 0
    const resolve = () => {
      resolved += 1
      return DIRECT
    }
    for (let index = 0; index < 3; index++) recent.of('https://lab.example.com/', undefined, resolve)
    recent.of(`https://lab.example.com/?${'x'.repeat(600)}`, undefined, resolve)
    recent.of(`https://lab.example.com/?${'x'.repeat(600)}`, undefined, resolve)
    expect(resolved).toBe(3)

    const clients = new McpClients()
    clients.remember('192.0.2.1', 'node', 'claude-ai', 0)
    expect(clients.nameOf('192.0.2.1', 'node', 59 * 60_000)).toBe('claude-ai')
    expect(clients.nameOf('192.0.2.2', 'node', 0)).toBeUndefined()
    expect(clients.nameOf('192.0.2.1', 'node', 61 * 60_000)).toBeUndefined()
    for (let index = 0; index < 1001; index++)
      clients.remember(`10.0.${index >> 8}.${index & 255}`, 'node', 'x', 0)
    expect(clients.nameOf('10.0.0.0', 'node', 0)).toBeUndefined()
    expect(clients.nameOf('10.0.3.232', 'node', 0)).toBe('x')
  })
})

describe('the owner’s table', () => {
  it('says 1 visit and 2 visits, and aligns the figures', () => {
    expect(plural(1, 'visit')).toBe('1 visit')
    expect(plural(1200, 'signup')).toBe('1,200 signups')
    expect(percent(null)).toBe('–')
    expect(percent(0.1234)).toBe('12.3%')
    const report: SourceCounts[] = [
      {
        source: 'x',
        visits: 1200,
        visitors: 1000,
        signups: 50,
        kind: 'page',
        conversion: 0.042,
        campaigns: [
          {
            medium: 'social',
            campaign: 'launch',
            visits: 1200,
            visitors: 1000,
            signups: 50,
            conversion: 0.042,
          },
        ],
      },
      {
        source: 'mcp',
        kind: 'no-visit',
        visits: 0,
        visitors: 0,
        signups: 2,
        conversion: null,
        campaigns: [],
      },
    ]
    expect(renderSources(report).split('\n')).toEqual([
      'source  visits  visitors  signups  conversion',
      'x        1,200     1,000       50        4.2%',
      'mcp          0         0        2           –',
      // Signups per visit, of the page rows: 50 of 1,200 visits (not of the 1,000 visitors).
      'total    1,200     1,000       52        4.2%',
    ])
    expect(renderCampaigns(report)?.split('\n')[1]).toMatch(/^x +social +launch +1,200 +1,000 +50$/)
  })

  it('gives a conversion, signups per visit, only to page rows with visits, and never over 100%', () => {
    expect(kindOf('(api)')).toBe('no-visit')
    expect(kindOf('mcp')).toBe('no-visit')
    expect(kindOf('direct')).toBe('page')
    expect(kindOf('(other)')).toBe('page')
    expect(conversionOf('page', 1, 4)).toBe(0.25)
    // Readers of an untagged link sign up as direct: more signups than direct's visits.
    expect(conversionOf('page', 10, 1)).toBe(1)
    expect(conversionOf('page', 3, 0)).toBeNull()
    expect(conversionOf('no-visit', 10, 0)).toBeNull()
  })
})
