import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { PLAIN_IMPORT, readLayout } from '../../owner/cli/import-layout'
import { readRow } from '../../owner/cli/import-row'
import { copyTextLine } from '../../server/db/copy-text'
import type { Database } from '../../server/db/database'
import { openPostgres } from '../../server/db/postgres-driver'
import { addStaged, createStage, stageRows } from '../../server/waitlist/admin/import-staging'

/**
 * An import adds a list with a plain insert when none of its addresses is listed (an `on conflict`
 * check on every row costs a sixth of a million-row load). A signup that takes one of its addresses
 * meanwhile must cost nothing but that address: the import skips it and adds the rest, with their
 * statuses and answers, in its one transaction. And without the race, the plain insert's entries get
 * theirs by their address.
 */
let db: Database
let url: string
beforeAll(async () => {
  url = await sharedPostgresUrl()
  db = await openPostgres(url, 4)
})
afterAll(async () => {
  await db?.close()
  await stopBackends()
})

const layout = readLayout(['email', 'status', 'answer_role'], PLAIN_IMPORT)
if ('problem' in layout) throw new Error(layout.problem)
const FILE = [
  ['race.one@example.com', 'invited', 'Research'],
  ['race.two@example.com', 'waiting', 'Product'],
  ['race.three@example.com', 'waiting', ''],
]

/** Whether a backend waits on a lock, as the import's insert does behind the signup's row. */
async function someoneWaits(): Promise<boolean> {
  const [row] = await db.query<{ waiting: number }>(
    `select count(*)::int as waiting from pg_stat_activity where wait_event_type = 'Lock' and query like 'insert into public.waitlist%'`,
  )
  return (row?.waiting ?? 0) > 0
}

describe('an import beside a signup', () => {
  it('skips the address a signup took during its insert, and adds the rest with their statuses and answers', async () => {
    const signup = new pg.Client({ connectionString: url })
    await signup.connect()
    try {
      // The signup has the address, uncommitted: the import's check does not see it yet.
      await signup.query('begin')
      await signup.query("insert into public.waitlist (email) values ('RACE.TWO@example.com')")
      const importing = db.copyTransaction(async (tx) => {
        const now = await createStage(tx)
        const dates = { order: undefined, decided: undefined, timeZone: undefined }
        const lines = FILE.map((fields, index) => {
          const row = readRow(fields, { layout, options: PLAIN_IMPORT, importTime: now, dates })
          if (!('staged' in row)) throw new Error(`line ${index + 2} is not good`)
          return copyTextLine([String(index + 2), ...row.staged])
        })
        await pipeline(Readable.from(lines), stageRows(tx))
        return addStaged(tx, FILE.length)
      })
      for (let tries = 0; !(await someoneWaits()); tries++) {
        if (tries > 200) throw new Error('the import never waited on the signup')
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      await signup.query('commit')
      expect(await importing).toBe(2)
    } finally {
      await signup.end()
    }
    const rows = await db.query<{ email: string; status: string; role: string | null }>(
      `select w.email::text as email, coalesce(s.status, 'waiting') as status, a.answers ->> 'role' as role
         from public.waitlist w
         left join private.entry_status s on s.waitlist_id = w.id
         left join private.entry_answers a on a.waitlist_id = w.id
        where w.email::text like 'race.%' or w.email::text like 'RACE.%' order by w.id`,
    )
    expect(rows).toEqual([
      { email: 'RACE.TWO@example.com', status: 'waiting', role: null },
      { email: 'race.one@example.com', status: 'invited', role: 'Research' },
      { email: 'race.three@example.com', status: 'waiting', role: null },
    ])
  })
})
