import { createHash } from 'node:crypto'
import pg from 'pg'
import { fillList } from '../harness/list-rows'
import { CREATED_AT_UTC } from '../server/waitlist/admin/entry-columns'

/** Six characters of the random part of one address, about three quarters down: a search for one person. */
const rarePart = (rows: number) =>
  createHash('md5')
    .update(String(Math.floor(rows * 0.777) + 1))
    .digest('hex')
    .slice(2, 8)

export interface LoadedList {
  loadMs: number
  /** The time `vacuum analyze` took, standing for autovacuum's pass after such a load. */
  vacuumMs: number
  /** The studio's cursor for the page that starts half-way down the list. */
  middleCursor: string
  /** Six characters of one address's random part: a search for one person. */
  rareSearch: string
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now()
  const result = await work()
  return [result, performance.now() - started]
}

/** Loads `rows` signups through the owner's connection string (`npm run waitlist -- url`). */
export async function loadList(ownerUrl: string, rows: number): Promise<LoadedList> {
  const client = new pg.Client({ connectionString: ownerUrl })
  await client.connect()
  try {
    const [, loadMs] = await timed(async () => {
      await client.query('begin')
      await fillList(client, rows)
      await client.query('commit')
    })
    const [, vacuumMs] = await timed(() =>
      client.query(
        'vacuum analyze public.waitlist, private.entry_status, private.entry_answers, private.entry_marks',
      ),
    )
    const middle = await client.query<{ cursor: string }>(
      `select ${CREATED_AT_UTC} || '_' || id as cursor from public.waitlist
        order by created_at desc, id desc offset $1 limit 1`,
      [Math.floor(rows / 2)],
    )
    return { loadMs, vacuumMs, middleCursor: middle.rows[0]?.cursor ?? '', rareSearch: rarePart(rows) }
  } finally {
    await client.end()
  }
}
