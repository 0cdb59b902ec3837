import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENTRY_STATUSES } from '../../contract/entry-statuses'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { fillList } from '../../harness/list-rows'
import type { Database } from '../../server/db/database'
import { openPostgres } from '../../server/db/postgres-driver'
import { tagsPresent } from '../../server/waitlist/admin/entry-marks'
import { pageEntries } from '../../server/waitlist/admin/entry-pages'
import { countByStatus, countByStatusAsIs } from '../../server/waitlist/admin/status-counts'
import { countEntries, removeEntry } from '../../server/waitlist/admin/waitlist-admin'
import { plansOf } from '../support/query-plans'

/**
 * Issue 63: the studio's first page (no filter, newest first) reads by keyset on the created_at
 * index as its later pages do, and the counts the page asks for beside it (the total, each status,
 * each tag) come from the counts kept by triggers, never a scan of the list, its statuses or its
 * marks (ADR 033, ADR 115). Checked
 * on 100,000 entries loaded as the million bench loads them, with the statistics a fresh load
 * leaves (no ANALYZE, autovacuum not yet by) and again once they are fresh.
 */
const ROWS = 100_000
const TABLES = ['public.waitlist', 'private.entry_status', 'private.entry_answers', 'private.entry_marks']

let db: Database
beforeAll(async () => {
  db = await openPostgres(await sharedPostgresUrl(), 4)
  // Autovacuum would analyze the tables on its own time: off, so the first plans see none.
  for (const table of TABLES) await db.exec(`alter table ${table} set (autovacuum_enabled = off)`)
  await db.transaction((tx) => fillList(tx, ROWS))
}, 120_000)
afterAll(async () => {
  await db?.close()
  await stopBackends()
})

/** Each statement's plan of the first page and of the counts the studio's page asks for beside it. */
async function firstPagePlans() {
  const page = await plansOf(db, (tx) => pageEntries(tx, { limit: 25 }))
  // The folds are writes of a few rows (their deltas); the reads are what could scan.
  const reads = (sql: string) => !sql.includes('delete from')
  const counts = await plansOf(
    db,
    async (tx) => [await countEntries(tx), await countByStatus(tx), await tagsPresent(tx, 51)],
    reads,
  )
  return { page, counts }
}

/** Entries by status, counted from the rows themselves. */
async function countedByStatus(): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: number }>(
    `select coalesce(s.status, 'waiting') as status, count(*)::int as n
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id group by 1`,
  )
  const counted = Object.fromEntries(rows.map((row) => [row.status, row.n]))
  return Object.fromEntries(ENTRY_STATUSES.map((status) => [status, counted[status] ?? 0]))
}

/** The tags the marks carry, counted from the marks themselves, as tagsPresent gives them. */
const countedTags = () =>
  db.query<{ tag: string; entries: number }>(
    `select tag, count(*)::int as entries from private.entry_marks, unnest(tags) as tag
      group by tag order by tag`,
  )

describe(`the studio's first page at ${ROWS.toLocaleString('en')} entries`, () => {
  it('reads the newest entries on the created_at index, and no count scans the list, its statuses or its marks', async () => {
    for (const stage of ['as loaded, no statistics', 'analyzed']) {
      if (stage === 'analyzed') await db.exec(`analyze ${TABLES.join(', ')}`)
      const { page, counts } = await firstPagePlans()
      for (const plan of [...page, ...counts]) {
        expect(plan.split(', '), stage).not.toContain('Seq Scan on waitlist')
        expect(plan.split(', '), stage).not.toContain('Seq Scan on entry_status')
        expect(plan.split(', '), stage).not.toContain('Seq Scan on entry_marks')
      }
      expect(
        page.some((plan) => plan.includes('Index Only Scan using waitlist_created_at_id')),
        `${stage}: ${page.join(' | ')}`,
      ).toBe(true)
    }
    const first = await pageEntries(db, { limit: 25 })
    expect(first.entries).toHaveLength(25)
    expect(first).toMatchObject({ matching: ROWS, capped: false, previous: null })
  })

  it('keeps the counts by tag exact through tagging, notes, erasures and a truncate', async () => {
    expect(await tagsPresent(db, 51)).toEqual(await countedTags())
    await db.transaction(async (tx) => {
      await tx.exec(`insert into public.waitlist (email) values ('tagged.late@example.com')`)
      await tx.exec(
        `insert into private.entry_marks (waitlist_id, tags)
         select id, array['ask-again', 'late'] from public.waitlist where email = 'tagged.late@example.com'`,
      )
    })
    await Promise.all([
      db.exec(
        `update private.entry_marks set tags = array_append(tags, 'partner') where waitlist_id % 4 = 0`,
      ),
      db.exec(`update private.entry_marks set note = 'Seen' where waitlist_id % 4 = 1`),
      tagsPresent(db, 51),
    ])
    await db.exec(
      `update private.entry_marks set tags = array_remove(tags, 'shortlist') where waitlist_id % 3 = 0`,
    )
    await db.exec(`delete from public.waitlist where id % 7 = 0 and email <> 'tagged.late@example.com'`)
    const tagged = await countedTags()
    expect(tagged.map((row) => row.tag)).toEqual(['ask-again', 'late', 'partner', 'shortlist'])
    expect(await tagsPresent(db, 51)).toEqual(tagged)
    expect(await tagsPresent(db, 2)).toEqual(tagged.slice(0, 2))
    await db.exec('truncate private.entry_marks')
    expect(await tagsPresent(db, 51)).toEqual([])
  })

  it('keeps the counts by status exact through moves, new statuses, erasures and a truncate', async () => {
    const statuses = async () => ({ kept: await countByStatus(db), asIs: await countByStatusAsIs(db) })
    const truth = await countedByStatus()
    expect(await statuses()).toEqual({ kept: truth, asIs: truth })
    // A batch of invitations moves some, in one statement; others, one by one and side by side, as
    // confirmations do; readers fold meanwhile.
    await db.exec(
      `update private.entry_status set status = 'joined' where status = 'invited' and waitlist_id % 3 = 0`,
    )
    await Promise.all([
      ...Array.from({ length: 20 }, (_, index) =>
        db.query(
          `update private.entry_status set status = 'bounced'
            where waitlist_id = (select waitlist_id from private.entry_status where status = 'waiting'
                                  order by waitlist_id offset $1 limit 1)`,
          [index * 7],
        ),
      ),
      ...Array.from({ length: 4 }, () => countByStatus(db)),
    ])
    // A status for entries that had none, an update that moves no status, and erasures' cascades.
    await db.exec(
      `insert into private.entry_status (waitlist_id, status)
       select w.id, 'unsubscribed' from public.waitlist w
        where w.id % 97 = 0 and not exists (select from private.entry_status s where s.waitlist_id = w.id)`,
    )
    await db.exec(`update private.entry_status set updated_at = now() where waitlist_id % 5 = 0`)
    const [erased] = await db.query<{ email: string }>(
      `select w.email::text as email from public.waitlist w join private.entry_status s on s.waitlist_id = w.id
        where s.status = 'joined' limit 1`,
    )
    expect(await removeEntry(db, erased?.email ?? '', { name: 'cli:test' })).toBe(true)
    await db.exec('delete from public.waitlist where id % 1000 = 0')
    const moved = await countedByStatus()
    expect(moved).not.toEqual(truth)
    expect(await statuses()).toEqual({ kept: moved, asIs: moved })
    await db.exec('truncate private.entry_status')
    const total = await countEntries(db)
    expect((await statuses()).kept).toEqual({ ...(await countedByStatus()), waiting: total })
    await db.exec('truncate public.waitlist cascade')
    expect(Object.values((await statuses()).kept).every((n) => n === 0)).toBe(true)
  })
})
