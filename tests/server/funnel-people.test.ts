import { describe, expect } from 'vitest'
import { postWaitlist } from '../../harness/waitlist-api'
import { mailTest } from '../support/fixtures'
import { API_SIGNUPS, CHROME, FUNNEL_LIST_ENV, listWithAResend, VISITS } from '../support/funnel-list'

/**
 * The funnel counts each person once, in every view (issue 51, item 1): on one list with a resend
 * in a second batch, `funnel`, `funnel --by batch` and `count --status` agree; signups with no
 * counted visit have their own row and are never a rate of visits; no rate in any JSON passes 1.
 * Through the real server (a browser's page visits and signups, the API's, invitations mailed to a
 * real SMTP server, a code redeemed over REST) and the CLI as a process.
 */
/** `json(...args)`: what the command prints with --json, parsed, once it exited 0. */
const it = mailTest(FUNNEL_LIST_ENV).extend('json', async ({ cli }) => {
  return async (...args: string[]) => {
    const result = await cli(...args, '--json')
    expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' })
    return JSON.parse(result.stdout)
  }
})

it.beforeAll(async ({ mail }) => {
  await listWithAResend(mail)
})

describe('one list, a resend in a second batch', () => {
  it('funnel: the page’s signups a rate of its visits, the API’s in their own row; the total’s rate of visits is the page’s', async ({
    json,
  }) => {
    const funnel = await json('funnel')
    expect(funnel.window).toBe('all')
    expect(funnel.rows).toEqual([
      {
        kind: 'page',
        source: 'direct',
        visits: VISITS,
        signups: 3,
        confirmed: 3,
        invited: 2,
        joined: 1,
        rates: { signups: 0.75, confirmed: 1, invited: 0.667, joined: 0.5 },
      },
      {
        kind: 'no-visit',
        source: null,
        signups: API_SIGNUPS.length,
        confirmed: 3,
        invited: 0,
        joined: 0,
        rates: { signups: null, confirmed: 1, invited: 0, joined: null },
      },
    ])
    expect(funnel.total).toEqual({
      visits: VISITS,
      signupsOnVisits: 3,
      signups: 6,
      confirmed: 6,
      invited: 2,
      joined: 1,
      // 3 of 4 visits; the API's three are not divided by them (they made the 150%).
      rates: { signups: 0.75, confirmed: 1, invited: 0.333, joined: 0.5 },
    })
    expect(await json('funnel', '--days', '90')).toEqual({ ...funnel, window: '90' })
  })

  it('funnel --by batch: Ann counts once, in the batch she joined by; the rows and the total count people', async ({
    cli,
    json,
  }) => {
    const { rows, total } = await json('funnel', '--by', 'batch')
    expect(rows).toEqual([
      expect.objectContaining({
        batch: expect.objectContaining({
          id: expect.any(Number),
          by: 'cli',
          size: 2,
          chosenBy: '2 addresses named',
        }),
        invited: 1,
        joined: 0,
      }),
      expect.objectContaining({
        batch: expect.objectContaining({ by: 'cli', size: 1, chosenBy: '1 address named' }),
        invited: 1,
        joined: 1,
        rates: expect.objectContaining({ joined: 1 }),
      }),
    ])
    expect(total).toMatchObject({ signups: 2, confirmed: 2, invited: 2, joined: 1, rates: { joined: 0.5 } })
    const bySource = await json('funnel')
    expect([total.invited, total.joined]).toEqual([bySource.total.invited, bySource.total.joined])
    expect((await cli('count', '--status', 'joined')).stdout).toBe('1\n')
    expect((await cli('count', '--status', 'invited')).stdout).toBe('1\n')
  })

  it('prints the same in its tables', async ({ cli }) => {
    const table = (await cli('funnel')).stdout
    console.log(`$ npm run waitlist -- funnel\n${table}`)
    expect(table).toMatch(/^direct +4 +3 \(75\.0%\) +3 \(100\.0%\) +2 \(66\.7%\) +1 \(50\.0%\)$/m)
    expect(table).toMatch(/^no visit counted +– +3 +3 \(100\.0%\) +0 \(0\.0%\) +0 \(–\)$/m)
    expect(table).toMatch(/^total +4 +6 \(75\.0%\) +6 \(100\.0%\) +2 \(33\.3%\) +1 \(50\.0%\)$/m)
    const batches = (await cli('funnel', '--by', 'batch')).stdout
    console.log(`$ npm run waitlist -- funnel --by batch\n${batches}`)
    expect(batches).toMatch(/^ *1 +\S+ \S+ +cli +2 addresses named +1 +0 \(0\.0%\)$/m)
    expect(batches).toMatch(/^ *2 +\S+ \S+ +cli +1 address named +1 +1 \(100\.0%\)$/m)
    expect(batches).toMatch(/^total +2 +1 \(50\.0%\)$/m)
    const joined = await cli('count', '--status', 'joined')
    console.log(`$ npm run waitlist -- count --status joined\n${joined.stdout}`)
    expect(joined.stdout).toBe('1\n')
    expect((await cli('funnel', '--days', '7')).code).toBe(2)
  })
})

/** Every number under a `rates` or `conversion` key, anywhere in a JSON value. */
function ratesIn(value: unknown): number[] {
  if (Array.isArray(value)) return value.flatMap(ratesIn)
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, inner]) => {
    if (key === 'conversion') return typeof inner === 'number' ? [inner] : []
    if (key === 'rates') return Object.values(inner as object).filter((rate) => typeof rate === 'number')
    return ratesIn(inner)
  })
}

describe('no rate above 1 in any JSON', () => {
  it('even where a source’s signups outnumber its visits (an untagged link’s readers sign up as direct)', async ({
    mail,
    json,
  }) => {
    // Two more people sign up on the page, having come by a link counted under another site.
    for (const email of ['hn.one@funnel.example.org', 'hn.two@funnel.example.org']) {
      const signup = await postWaitlist(
        mail.server,
        { email },
        { 'user-agent': CHROME, referer: `${mail.server.url}/` },
      )
      expect(signup.status).toBe(201)
    }
    await expect
      .poll(
        async () =>
          (await json('sources')).find((row: { source: string }) => row.source === 'direct')?.signups,
      )
      .toBe(5)
    const reports = [await json('funnel'), await json('funnel', '--by', 'batch'), await json('sources')]
    const rates = reports.flatMap(ratesIn)
    expect(rates.length).toBeGreaterThan(20)
    expect(rates.filter((rate) => rate < 0 || rate > 1)).toEqual([])
    const { total, rows } = reports[0]
    expect(rows[0]).toMatchObject({ source: 'direct', visits: 4, signups: 5, rates: { signups: 1 } })
    expect(total).toMatchObject({ signups: 8, signupsOnVisits: 5, rates: { signups: 1 } })
  })
})
