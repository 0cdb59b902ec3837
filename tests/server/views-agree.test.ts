import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditRecord, cliOf } from '../../harness/waitlist-cli'
import { OWN_PAGE_HOME } from '../../server/analytics/source-of'
import { questionsFormHtml } from '../../server/http/mail-links/questions-form'
import { takeBackSignups } from '../../server/waitlist/erased-counts'
import {
  ANN,
  API_SIGNUPS,
  BEN,
  CHROME,
  FUNNEL_LIST_ENV,
  listWithAResend,
  VISITS,
} from '../support/funnel-list'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { utcDay } from '../support/relative-dates'

/**
 * Issue 64, "views that agree after an erasure", through the real server and the CLI as a process.
 * The funnel's list (funnel-list.ts): four page visits, Ann, Ben and Cal signing up on them, three
 * through the API; batch 1 invites Ann and Ben, batch 2 Ann again, and Ann joins. Then Ben and Ann
 * are erased. The batches keep their counts as the record keeps them ("2 invited, 1 erased since"),
 * with no trace of who; `sources`, `stats`, `count` and the funnel count the same signups, the
 * people on the list; the conversion is one rate, signups per visit, in `sources` and the funnel;
 * and a person's own pages link home without counting a visit.
 */
let mail: MailTestServer
const cli = cliOf(() => mail.server)
const json = async (...args: string[]) => {
  const result = await cli(...args, '--json')
  expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' })
  return JSON.parse(result.stdout)
}
type SourceRow = { source: string; visits: number; signups: number; conversion: number | null }
const sourceRow = async (name: string): Promise<SourceRow | undefined> =>
  ((await json('sources', '--days', 'all')) as SourceRow[]).find((row) => row.source === name)

beforeAll(async () => {
  mail = await startMailTestServer(FUNNEL_LIST_ENV)
  await listWithAResend(mail)
})

afterAll(async () => {
  await mail?.close()
})

describe('after an erasure', () => {
  beforeAll(async () => {
    const removed = await cli('remove', BEN, ANN)
    expect(removed, removed.stderr).toMatchObject({ code: 0 })
  })

  it('each batch keeps its counts, as the record does: a count, and no trace of who', async () => {
    const { rows, total } = await json('funnel', '--by', 'batch')
    expect(
      rows.map(({ batch, invited, joined }: Record<string, { erased?: number }>) => ({
        erased: batch?.erased,
        invited,
        joined,
      })),
    ).toEqual([
      { erased: 1, invited: 1, joined: 0 },
      { erased: 1, invited: 1, joined: 1 },
    ])
    expect(total).toMatchObject({ invited: 2, joined: 1 })
    // The record's lines of the two batches count the same people, and name none of them.
    const record = await auditRecord(mail.server.env)
    const batches = record.filter((line) => line.action === 'invite' || line.action === 'resend')
    expect(batches.map((line) => line.count)).toEqual([2, 1])
    expect(record.filter((line) => line.action === 'remove').map((line) => line.count)).toEqual([1, 1])
    expect(JSON.stringify(record)).not.toMatch(/ann@|ben@/)
    const table = (await cli('funnel', '--by', 'batch')).stdout
    expect(table).toMatch(/^ *1 +\S+ \S+ +cli +2 addresses named +1 \(1 erased since\) +0 \(0\.0%\)$/m)
    expect(table).toMatch(/^ *2 +\S+ \S+ +cli +1 address named +1 \(1 erased since\) +1 \(100\.0%\)$/m)
    expect(table).toMatch(/^total +2 \(2 erased since\) +1 \(50\.0%\)$/m)
  })

  it('`sources`, `stats`, `count` and the funnel count the same signups: the people on the list', async () => {
    const onList = 1 + API_SIGNUPS.length
    // The counter's signups are taken back in the erasure's transaction: nothing to wait for.
    expect(await sourceRow('direct')).toMatchObject({ visits: VISITS, signups: 1 })
    const sources = (await json('sources', '--days', 'all')) as SourceRow[]
    expect(sources.reduce((sum, row) => sum + row.signups, 0)).toBe(onList)
    expect((await cli('stats', '--days', 'all')).stdout).toContain(
      `${onList} since the first signup; ${onList} on the list in total.`,
    )
    expect((await cli('count')).stdout).toBe(`${onList}\n`)
    const funnel = await json('funnel')
    expect(funnel.total).toMatchObject({ visits: VISITS, signups: onList, signupsOnVisits: 1 })
  })

  it('one conversion, signups per visit, in `sources` and the funnel, and named so', async () => {
    const direct = await sourceRow('direct')
    const funnel = await json('funnel')
    const page = funnel.rows.find((row: { source: string | null }) => row.source === 'direct')
    expect(direct?.conversion).toBe(0.25)
    expect(page.rates.signups).toBe(direct?.conversion)
    expect((await cli('sources', '--days', 'all')).stdout).toContain(
      'conversion: signups per visit, as the funnel gives it.',
    )
    expect((await cli('funnel')).stdout).toContain("The signups' rate is the conversion, signups per visit")
  })

  it('a person’s own pages link home without counting a visit', async () => {
    expect(questionsFormHtml({ action: '/confirm/answers' })).toContain(`href="${OWN_PAGE_HOME}"`)
    const home = await fetch(`${mail.server.url}${OWN_PAGE_HOME}`, { headers: { 'user-agent': CHROME } })
    expect(home.status).toBe(200)
    // A visit of the page itself is counted, and written within the flush (100 ms): then both are in.
    expect((await fetch(`${mail.server.url}/`, { headers: { 'user-agent': CHROME } })).status).toBe(200)
    await expect.poll(async () => (await sourceRow('direct'))?.visits, { timeout: 10_000 }).toBe(VISITS + 1)
    await sleep(300)
    expect((await sourceRow('direct'))?.visits).toBe(VISITS + 1)
  })
})

describe('taking signups back from the counts by source', () => {
  it('takes them from the day’s busiest media and campaigns first, never below zero, the rest left', async () => {
    const day = utcDay(-40)
    const { db } = mail.database
    await db.query(
      `insert into private.source_counts (day, source, medium, campaign, visits, signups)
       values ($1, 'expired-test', 'a', '', 5, 2), ($1, 'expired-test', 'b', '', 5, 3), ($1, 'other', '', '', 1, 1)`,
      [day],
    )
    // Three of expired-test's five (an expiry's batch), and two of other's one.
    const gone = [...Array(3).fill('expired-test'), 'other', 'other'].map((source) => ({ day, source }))
    await takeBackSignups(db, gone)
    const left = await db.query<{ source: string; medium: string; signups: string }>(
      `select source, medium, signups::text from private.source_counts where day = $1 order by source, medium`,
      [day],
    )
    expect(left.map((row) => [row.source, row.medium, Number(row.signups)])).toEqual([
      ['expired-test', 'a', 2],
      ['expired-test', 'b', 0],
      ['other', '', 0],
    ])
  })
})
