import { tmpdir } from 'node:os'
import { PassThrough } from 'node:stream'
import { text } from 'node:stream/consumers'
import { afterAll, describe, expect } from 'vitest'
import { ENTRY_STATUSES } from '../../contract/entry-statuses'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { importFile } from '../../owner/cli/import'
import type { Database } from '../../server/db/database'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { exportCsv } from '../../server/waitlist/admin/export-csv'
import { removeEntry } from '../../server/waitlist/admin/waitlist-admin'
import { inviteNamed, inviteNext } from '../../server/waitlist/invite/invitations'
import { confirm, unsubscribe } from '../../server/waitlist/link-actions'
import { scratchTest as it } from '../support/fixtures'

/**
 * Statuses beside the waitlist: what `invite` picks and refuses, what erasure leaves (nothing), and
 * that export and import carry them, so a restored or moved list never mails an address that
 * unsubscribed nor invites anyone twice. On DATABASE_URL databases copied from the migrated
 * template: the SQL is the embedded cluster's too.
 */
const opened: OpenedDatabase[] = []
afterAll(async () => {
  for (const database of opened) await database.close()
  await stopBackends()
})

async function freshDb(): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: await sharedPostgresUrl(),
    dataDir: tmpdir(),
    purpose: 'test',
  })
  opened.push(database)
  return database.db
}

const QUEUE = { resend: false, messageDomain: 'tessel-labs.example' }

async function add(db: Database, ...emails: string[]): Promise<void> {
  for (const [index, email] of emails.entries())
    await db.query(
      `insert into public.waitlist (email, created_at) values ($1, now() - $2 * interval '1 hour')`,
      [email, emails.length - index],
    )
}

const statuses = async (db: Database) =>
  Object.fromEntries(
    (
      await db.query<{ email: string; status: string }>(
        `select w.email::text as email, coalesce(s.status, 'waiting') as status
           from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id`,
      )
    ).map((row) => [row.email, row.status]),
  )

/** What `export` writes, as text. */
async function exported(db: Database): Promise<string> {
  const out = new PassThrough()
  const [csv] = await Promise.all([text(out), exportCsv(db, out, { actor: { name: 'cli:test' } })])
  return csv
}

async function pendingMailTo(db: Database, email: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
      where w.email = $1 and o.status = 'pending'`,
    [email],
  )
  return row?.n ?? 0
}

describe('entry statuses', () => {
  it('invite picks the oldest waiting entries once, never the unconfirmed or unsubscribed, and --resend only when asked', async () => {
    const db = await freshDb()
    await add(db, 'a@example.com', 'b@example.com', 'c@example.com', 'd@example.com')
    await db.query(
      `insert into private.entry_status (waitlist_id, status) select id, 'unconfirmed' from public.waitlist where email = 'a@example.com'`,
    )
    expect(await unsubscribe(db, 'B@Example.com')).toBe('done')
    expect(await unsubscribe(db, 'b@example.com')).toBe('already')
    const first = await inviteNext(db, 1, QUEUE)
    expect(first.queued.map((entry) => entry.email)).toEqual(['c@example.com'])
    expect((await inviteNext(db, 5, QUEUE)).queued.map((entry) => entry.email)).toEqual(['d@example.com'])
    expect((await inviteNext(db, 5, QUEUE)).queued).toEqual([])

    const named = await inviteNamed(
      db,
      ['a@example.com', 'b@example.com', 'C@example.com', 'x@example.com'],
      QUEUE,
    )
    expect(named.queued).toEqual([])
    expect(named.refused.map((entry) => entry.status).sort()).toEqual([
      'invited',
      'unconfirmed',
      'unsubscribed',
    ])
    expect(named.unknown).toEqual(['x@example.com'])
    const resent = await inviteNamed(db, ['c@example.com', 'b@example.com'], { ...QUEUE, resend: true })
    expect(resent.queued.map((entry) => entry.email)).toEqual(['c@example.com'])
    expect(await pendingMailTo(db, 'c@example.com'), 'the earlier invitation is replaced, not doubled').toBe(
      1,
    )

    expect(await confirm(db, 'a@example.com')).toBe('done')
    expect((await inviteNext(db, 5, QUEUE)).queued.map((entry) => entry.email)).toEqual(['a@example.com'])
    expect(await statuses(db)).toEqual({
      'a@example.com': 'invited',
      'b@example.com': 'unsubscribed',
      'c@example.com': 'invited',
      'd@example.com': 'invited',
    })
  })

  it('remove erases the entry, its status and its mail', async () => {
    const db = await freshDb()
    await add(db, 'gone@example.com')
    await inviteNext(db, 1, QUEUE)
    await unsubscribe(db, 'gone@example.com')
    expect(await removeEntry(db, 'GONE@example.com', { name: 'cli:test' })).toBe(true)
    for (const table of ['entry_status', 'mail_outbox', 'webhook_deliveries']) {
      const [row] = await db.query<{ n: number }>(`select count(*)::int as n from private.${table}`)
      expect(row?.n, table).toBe(0)
    }
  })

  it('export carries statuses and dates; import restores them, and never moves a listed entry back', async ({
    scratch,
  }) => {
    const source = await freshDb()
    await add(source, 'inv@example.com', 'unsub@example.com', 'wait@example.com', 'unconf@example.com')
    await inviteNamed(source, ['inv@example.com', 'unsub@example.com'], QUEUE)
    await unsubscribe(source, 'unsub@example.com')
    await source.query(
      `insert into private.entry_status (waitlist_id, status) select id, 'unconfirmed' from public.waitlist where email = 'unconf@example.com'`,
    )
    const csv = await exported(source)
    expect(csv.split('\r\n')[0]).toBe(
      'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at,joined_at,source,' +
        'answer_role,answer_organisation,answer_use_case,tags,note,consent_at,consent_door,consent_words,consent_agent,confirmed_from,name',
    )
    // Added by the owner's SQL: a program's door (api), no words.
    expect(csv).toMatch(
      /\r\nunsub@example\.com,[^,]+,unsubscribed,,\d{4}-[^,]+Z,\d{4}-[^,]+Z,,,,,,,,,[^,]+Z,api,,,,\r\n/,
    )
    const file = await scratch.file('export.csv', csv)

    // Restored into an empty database: the same file comes back out.
    const restored = await freshDb()
    expect(await importFile(restored, file, false)).toMatchObject({ added: 4, raised: 0 })
    expect(await exported(restored)).toBe(csv)

    // Into a live list where they are all waiting, one with an invitation still queued.
    const live = await freshDb()
    await add(live, 'unsub@example.com', 'unconf@example.com', 'inv@example.com', 'wait@example.com')
    await inviteNamed(live, ['unsub@example.com', 'wait@example.com'], QUEUE)
    expect(await importFile(live, file, false)).toMatchObject({ entries: 4, added: 0, raised: 2 })
    expect(await statuses(live)).toEqual({
      'unsub@example.com': 'unsubscribed',
      'unconf@example.com': 'waiting',
      'inv@example.com': 'invited',
      'wait@example.com': 'invited',
    })
    expect(await pendingMailTo(live, 'unsub@example.com'), 'its queued invitation is cancelled').toBe(0)
    // The move went through the table of transitions: the history says where it came from.
    const history = await live.query<{ event: string; detail: string }>(
      `select e.event, e.detail from private.entry_events e join public.waitlist w on w.id = e.waitlist_id
        where w.email = 'unsub@example.com' order by e.id`,
    )
    expect(history.at(-1)).toEqual({ event: 'imported', detail: 'the file says unsubscribed' })
    expect((await inviteNext(live, 10, QUEUE)).queued.map((entry) => entry.email)).toEqual([
      'unconf@example.com',
    ])
  })

  it('import adds new entries with their statuses beside listed ones moving on, reads an export from before statuses as waiting, and checks each status line', async ({
    scratch,
  }) => {
    const when = '2024-11-01T09:00:00.000000Z'
    const at = (hour: number) => `2024-11-02T${String(hour).padStart(2, '0')}:00:00.000000Z`
    const live = await freshDb()
    await add(live, 'listed.unsub@example.com', 'listed.wait@example.com')
    await inviteNamed(live, ['listed.wait@example.com'], QUEUE)
    const header = 'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at'
    const file = await scratch.file(
      'new.csv',
      [
        header,
        `listed.unsub@example.com,${when},unsubscribed,,${at(1)},${at(2)},`,
        `listed.wait@example.com,${when},waiting,,,,`,
        `new.unconf@example.com,${when},unconfirmed,,,,`,
        `new.bounced@example.com,${when},bounced,${at(3)},${at(4)},,${at(5)}`,
        `new.wait@example.com,${when},waiting,,,,`,
        '',
      ].join('\r\n'),
    )
    expect(await importFile(live, file, false)).toMatchObject({ entries: 5, added: 3, raised: 1 })
    expect(await statuses(live)).toEqual({
      'listed.unsub@example.com': 'unsubscribed',
      'listed.wait@example.com': 'invited',
      'new.unconf@example.com': 'unconfirmed',
      'new.bounced@example.com': 'bounced',
      'new.wait@example.com': 'waiting',
    })
    // A line without a consent record: door import, the version naming the file.
    expect(await exported(live)).toMatch(
      new RegExp(
        String.raw`\r\nnew\.bounced@example\.com,${when},bounced,${at(3)},${at(4)},,${at(5)},,,,,,,,[^,]+Z,import,[0-9a-f]{16},,,\r\n`,
      ),
    )
    expect(await pendingMailTo(live, 'listed.wait@example.com'), 'moving nobody back').toBe(1)

    // An export written before statuses: its entries are waiting, and listed ones keep theirs.
    const old = await scratch.file(
      'old.csv',
      `email,created_at\r\nlisted.unsub@example.com,${when}\r\nold@example.com,${when}\r\n`,
    )
    expect(await importFile(live, old, false)).toMatchObject({ entries: 2, added: 1, raised: 0 })
    expect(await statuses(live)).toMatchObject({
      'listed.unsub@example.com': 'unsubscribed',
      'old@example.com': 'waiting',
    })

    const bad = await scratch.file(
      'bad.csv',
      [
        header,
        `a@example.com,${when},gone,,,,`,
        `b@example.com,${when},invited,,yesterday,,`,
        `c@example.com,${when},invited`,
        '',
      ].join('\r\n'),
    )
    expect(await importFile(live, bad, false)).toEqual({
      kind: 'refused',
      count: 3,
      lines: 3,
      problems: [
        {
          line: 2,
          message: `status "gone": not one of ${ENTRY_STATUSES.join(', ')}`,
        },
        {
          line: 3,
          message:
            'invited_at "yesterday": not a date or time such as 2024-09-01, 2024-09-01 09:00 (UTC), 2024-09-01T09:00:00+02:00, 09/14/2024, 14.09.2024 or Unix seconds',
        },
        { line: 4, message: `expected 7 fields (${header}), found 3` },
      ],
      skipped: [],
      skippedCount: 0,
      firstRows: [],
    })
  })
})
