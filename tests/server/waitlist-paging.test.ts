import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Queryable } from '../../server/db/database'
import { type EntryPage, pageEntries } from '../../server/waitlist/admin/entry-pages'
import type { EntrySort } from '../../server/waitlist/admin/entry-sort'
import { countEntries, removeEntry, signupsPerDay } from '../../server/waitlist/admin/waitlist-admin'
import { sharedPostgres } from '../support/file-server'
import { plansOf } from '../support/query-plans'

const shared = sharedPostgres(4)

/** Rows inserted as the owner, notifications off, as import and the bench do. */
async function insertRows(rows: [email: string, createdAt: string][]) {
  await shared.db.transaction(async (tx) => {
    await tx.exec("set local waitlist.importing = 'on'")
    await tx.query(
      'insert into public.waitlist (email, created_at) select * from unnest($1::text[], $2::timestamptz[])',
      [rows.map(([email]) => email), rows.map(([, createdAt]) => createdAt)],
    )
  })
}

/** Every page from the first, following `next`, then back again following `previous`. */
async function walk(
  search: string,
  limit: number,
  more: Pick<Parameters<typeof pageEntries>[1], 'sort' | 'filter'> = {},
) {
  const forward: EntryPage[] = [await pageEntries(shared.db, { search, limit, ...more })]
  for (let page = forward[0]; page?.next; page = forward.at(-1))
    forward.push(await pageEntries(shared.db, { search, after: page.next, limit, ...more }))
  const backward: EntryPage[] = [forward.at(-1) as EntryPage]
  for (let page = backward[0]; page?.previous; page = backward.at(-1))
    backward.push(await pageEntries(shared.db, { search, before: page.previous, limit, ...more }))
  const emails = (pages: EntryPage[]) => pages.flatMap((page) => page.entries.map((entry) => entry.email))
  return { forward, backward, down: emails(forward), up: emails(backward.reverse()) }
}

describe('the studio list, paged by keyset', () => {
  const times = Array.from({ length: 6 }, (_, index) => `2024-11-0${index + 1}T09:00:00.123456Z`)
  // 48 entries on 6 instants, inserted out of order: ties in created_at, ids that do not follow it.
  const rows = Array.from({ length: 48 }, (_, index): [string, string] => [
    `${index % 3 === 0 ? 'match' : 'other'}.${String(index).padStart(2, '0')}@example.com`,
    times[(index * 5) % times.length] ?? '',
  ])
  let newestFirst: string[]

  beforeAll(async () => {
    await insertRows([...rows.slice(30), ...rows.slice(0, 30)])
    const ordered = await shared.db.query<{ email: string }>(
      'select email::text as email from public.waitlist order by created_at desc, id desc',
    )
    newestFirst = ordered.map((row) => row.email)
  })

  it('shows every entry once, newest first, forwards and backwards, with ties in created_at', async () => {
    for (const limit of [1, 5, 7, 48, 100]) {
      const { forward, down, up } = await walk('', limit)
      expect(down, `limit ${limit}`).toEqual(newestFirst)
      expect(up, `limit ${limit}`).toEqual(newestFirst)
      expect(forward).toHaveLength(Math.ceil(48 / limit))
      expect(forward[0]?.previous).toBeNull()
      expect(forward.every((page) => page.matching === 48 && !page.capped)).toBe(true)
    }
  })

  it('pages a search the same way, any letter case, % and _ literal', async () => {
    const { down, up, forward } = await walk('MATCH.', 4)
    const matching = newestFirst.filter((email) => email.startsWith('match.'))
    expect(down).toEqual(matching)
    expect(up).toEqual(matching)
    expect(forward[0]?.matching).toBe(16)
    expect((await pageEntries(shared.db, { search: 'match%', limit: 4 })).matching).toBe(0)
  })

  it('pages a search of one or two characters (the start of an address or its domain) as the others', async () => {
    // "M" and "match." find the same sixteen entries: the first as the start of the address.
    for (const limit of [1, 4, 7, 16, 50]) {
      const short = await walk('M', limit)
      const long = await walk('match.', limit)
      expect(short.forward, `limit ${limit}`).toEqual(long.forward)
      expect(short.backward, `limit ${limit}`).toEqual(long.backward)
      expect(short.up, `limit ${limit}`).toEqual(long.down)
    }
    const none = await pageEntries(shared.db, { search: 'q', limit: 4 })
    expect(none).toEqual({ entries: [], matching: 0, capped: false, next: null, previous: null })
  })

  it('neither skips nor repeats an entry when one is removed between two pages', async () => {
    const first = await pageEntries(shared.db, { limit: 5 })
    const second = await pageEntries(shared.db, { after: first.next ?? '', limit: 5 })
    const gone = second.entries[0]?.email ?? ''
    expect(await removeEntry(shared.db, gone, { name: 'cli:test' })).toBe(true)
    const again = await pageEntries(shared.db, { after: first.next ?? '', limit: 5 })
    expect(again.entries.map((entry) => entry.email)).toEqual(
      newestFirst.filter((email) => email !== gone).slice(5, 10),
    )
    expect(again.matching).toBe(47)
  })

  it('refuses a cursor it did not write', async () => {
    for (const cursor of ['', 'page=2', '2024-11-01T09:00:00Z_1', '2024-11-01T09:00:00.123456Z_x'])
      await expect(pageEntries(shared.db, { after: cursor, limit: 5 })).rejects.toThrow(/cursor/)
  })
})

describe('the studio list, sorted by any column', () => {
  // 30 entries of their own domain: organisations with ties, blanks and letter cases; tags on some.
  const ORGANISATIONS = ['acme', 'Acme', 'Zeta', 'beta', '', 'CERN']
  const filter = { domains: ['sorting.example'] }
  let entries: { email: string; id: number; organisation: string; tags: string }[]

  beforeAll(async () => {
    const rows = Array.from({ length: 30 }, (_, index): [string, string] => [
      `s${String((index * 7) % 30).padStart(2, '0')}@sorting.example`,
      `2024-11-0${1 + (index % 5)}T09:00:00.000000Z`,
    ])
    await insertRows(rows)
    entries = await shared.db.query(
      `select w.email::text as email, w.id::int as id, ($1::text[])[1 + w.id % 6] as organisation,
              case when w.id % 4 = 0 then 'shortlist' when w.id % 4 = 1 then 'ask-again shortlist' else '' end as tags
         from public.waitlist w where w.email::text like '%@sorting.example'`,
      [ORGANISATIONS],
    )
    for (const entry of entries) {
      if (entry.organisation !== '')
        await shared.db.query(
          `insert into private.entry_answers (waitlist_id, answers) values ($1, $2::jsonb)`,
          [entry.id, JSON.stringify({ organisation: entry.organisation })],
        )
      if (entry.tags !== '')
        await shared.db.query(`insert into private.entry_marks (waitlist_id, tags) values ($1, $2::text[])`, [
          entry.id,
          entry.tags.split(' '),
        ])
    }
  })

  /** The order the sort promises: by the value (lower case, byte order), blanks last either way, ties by id. */
  function expected(sort: EntrySort, keyOf: (entry: (typeof entries)[number]) => string): string[] {
    const way = sort.descending ? -1 : 1
    return [...entries]
      .sort((a, b) => {
        const [x, y] = [keyOf(a).toLowerCase(), keyOf(b).toLowerCase()]
        if ((x === '') !== (y === '')) return x === '' ? 1 : -1
        if (x !== y) return (x < y ? -1 : 1) * way
        return (a.id - b.id) * way
      })
      .map((entry) => entry.email)
  }

  it('walks every order both ways, page by page, whatever the page size; blanks come last', async () => {
    const cases: [EntrySort, (entry: (typeof entries)[number]) => string][] = [
      [{ column: 'answer_organisation', descending: false }, (entry) => entry.organisation],
      [{ column: 'answer_organisation', descending: true }, (entry) => entry.organisation],
      [{ column: 'email', descending: true }, (entry) => entry.email],
      [{ column: 'tags', descending: false }, (entry) => entry.tags],
    ]
    for (const [sort, keyOf] of cases)
      for (const limit of [1, 4, 7, 50]) {
        const order = expected(sort, keyOf)
        const label = `${sort.column} ${sort.descending ? 'desc' : 'asc'}, limit ${limit}`
        const { down, up } = await walk('', limit, { sort, filter })
        expect(down, label).toEqual(order)
        expect(up, label).toEqual(order)
        // A search is paged from its matches in memory: the same order.
        const searched = await walk('sorting', limit, { sort, filter })
        expect(searched.down, `search, ${label}`).toEqual(order)
        expect(searched.up, `search, ${label}`).toEqual(order)
      }
  })

  it('refuses a cursor it did not write for the order', async () => {
    const sort: EntrySort = { column: 'answer_organisation', descending: false }
    const first = await pageEntries(shared.db, { limit: 5, sort, filter })
    expect(first.next).toMatch(/_\d+$/)
    await expect(pageEntries(shared.db, { after: first.next ?? '', limit: 5 })).rejects.toThrow(/cursor/)
    await expect(pageEntries(shared.db, { after: `${'x'.repeat(2001)}_1`, limit: 5, sort })).rejects.toThrow(
      /cursor/,
    )
  })
})

/** The plan of each statement `call` sends (query-plans.ts). */
const plans = (call: (tx: Queryable) => Promise<unknown>) => plansOf(shared.db, call)

describe('on a larger list, the indexes serve every studio request', () => {
  beforeAll(async () => {
    await shared.db.exec('truncate public.waitlist cascade')
    await shared.db.transaction(async (tx) => {
      await tx.exec("set local waitlist.importing = 'on'")
      await tx.exec(
        `insert into public.waitlist (email, created_at)
         select substr(md5(i::text), 1, 10) || '.' || i || '@' || (array['example.com', 'example.org', 'lab.test'])[1 + i % 3],
                timestamptz '2024-06-01' + i * interval '37 seconds'
           from generate_series(1, 20000) as i`,
      )
    })
    // As autovacuum leaves it: the trigram index's pending list merged, the statistics fresh.
    await shared.db.exec('vacuum analyze public.waitlist')
  })

  it('a search for a substring uses the trigram index; no request reads the whole table', async () => {
    // Six characters of one address's random part: a rare substring, as a search for someone is.
    const rare = createHash('md5').update('1234').digest('hex').slice(2, 8)
    expect(
      (await pageEntries(shared.db, { search: rare, limit: 25 })).entries.map((entry) => entry.email),
    ).toContain(`${createHash('md5').update('1234').digest('hex').slice(0, 10)}.1234@example.org`)
    const hit = await plans((tx) => pageEntries(tx, { search: rare, limit: 25 }))
    expect(hit.some((plan) => plan.includes('waitlist_email_search_trgm'))).toBe(true)
    const miss = await plans((tx) => pageEntries(tx, { search: 'nobody-like-this', limit: 25 }))
    // The addresses through the trigram index; the names apart, in entry_names, which holds only the named.
    expect(miss.some((plan) => plan.includes('waitlist_email_search_trgm'))).toBe(true)
    // Across a dot and an @: trigrams that span them, not "com"-like ones common to every address.
    const punctuated = await plans((tx) => pageEntries(tx, { search: '.1234@', limit: 25 }))
    const first = await plans((tx) => pageEntries(tx, { limit: 25 }))
    const page = await pageEntries(shared.db, { limit: 25 })
    const deep = await plans((tx) => pageEntries(tx, { after: page.next ?? '', limit: 25 }))
    const counts = await plans(async (tx) => [await countEntries(tx), await signupsPerDay(tx, 'all')])
    for (const plan of [...hit, ...miss, ...punctuated, ...first, ...deep, ...counts])
      expect(plan.split(', ')).not.toContain('Seq Scan on waitlist')
    for (const search of [hit, punctuated])
      expect(search.some((plan) => plan.includes('Bitmap Index Scan using waitlist_email_search_trgm'))).toBe(
        true,
      )
    expect([...first, ...deep].some((plan) => plan.includes('waitlist_created_at_id'))).toBe(true)
  })

  it('the counts kept by triggers match the rows, after inserts, removals, moves and a truncate', async () => {
    const truth = async () =>
      shared.db.query<{ day: string; count: number }>(
        `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as count
           from public.waitlist group by 1 order by 1`,
      )
    const kept = async () => (await signupsPerDay(shared.db, 'all')).filter((day) => day.count > 0)
    expect(await kept()).toEqual(await truth())
    expect(await countEntries(shared.db)).toBe(20000)
    // Ten connections inserting at once, as a busy server's pool does.
    const many = Array.from({ length: 10 }, (_, connection) =>
      Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          shared.db.query('insert into public.waitlist (email) values ($1)', [
            `busy.${connection}.${index}@example.com`,
          ]),
        ),
      ),
    )
    // Readers fold the deltas meanwhile, several at once.
    const readers = Array.from({ length: 6 }, () => countEntries(shared.db))
    await Promise.all([...many, ...readers])
    await shared.db.exec(`delete from public.waitlist where email::text like '1%'`)
    await shared.db.exec(
      `update public.waitlist set created_at = created_at - interval '400 days' where email::text like '2%'`,
    )
    expect(await kept()).toEqual(await truth())
    const [{ count } = { count: -1 }] = await shared.db.query<{ count: number }>(
      'select count(*)::int as count from public.waitlist',
    )
    expect(await countEntries(shared.db)).toBe(count)
    await shared.db.exec('truncate public.waitlist cascade')
    expect(await countEntries(shared.db)).toBe(0)
  })
})

describe('a search finds exactly the addresses that contain it', () => {
  // Each pair differs only where the index maps punctuation to a letter (. → q, @ → z, - → x, _ → j):
  // the index finds both, the search must show only the real match.
  const emails = [
    'ada.lovelace@example.com',
    'adaqlovelace@example.com',
    'grace_hopper@navy.mil',
    'gracejhopper@navy.mil',
    'alan-turing@bletchley.uk',
    'alanxturing@bletchley.uk',
    'Edsger.Dijkstra@EXAMPLE.com',
    'barbara@liskovzexample.org',
    ...Array.from({ length: 30 }, (_, index) => `member-${String(index * 7).padStart(4, '0')}@lab.org`),
  ]

  beforeAll(async () => {
    await shared.db.exec('truncate public.waitlist cascade')
    await insertRows(
      emails.map((email, index) => [email, `2024-11-20T09:00:${String(index).padStart(2, '0')}Z`]),
    )
  })

  it('for a prefix, a substring, one across punctuation, and the start of one or two characters, in any letter case', async () => {
    const newestFirst = [...emails].reverse()
    for (const search of [
      'ada', // a prefix, as people type first
      'ADA.L', // across a dot, any letter case
      'e_h', // an underscore, literal
      'n-t', // a hyphen
      'kstra@example.c', // across the @
      'e.com', // trigrams common to most addresses, rare together
      'member-00', // a shared prefix and digits
      '0@lab', // digits before the @
      '@', // short: the start of an address or a domain, which no '@' is
      'ov', // short: no address or domain starts so
      'ad', // short: the start of two addresses
      'na', // short: the start of a domain
      'me', // short: the start of thirty addresses
      'xexample', // matches nothing, though "@example" maps to it
    ]) {
      const page = await pageEntries(shared.db, { search, limit: 100 })
      const term = search.toLowerCase()
      // One or two characters: the start of the address or of its domain; more: anywhere in it.
      const matches = (email: string) =>
        term.length <= 2
          ? email.toLowerCase().startsWith(term) || (email.split('@')[1] ?? '').toLowerCase().startsWith(term)
          : email.toLowerCase().includes(term)
      const expected = newestFirst.filter(matches)
      expect(
        page.entries.map((entry) => entry.email),
        search,
      ).toEqual(expected)
      expect(page.matching, search).toBe(expected.length)
    }
  })
})
