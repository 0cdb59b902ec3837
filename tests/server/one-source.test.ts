import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stopBackends } from '../../harness/backends'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { cliOf } from '../../harness/waitlist-cli'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { CHROME } from '../support/funnel-list'

/**
 * One source, one spelling (issue 64, item 4): the page's `?utm_source=Newsletter`, an import's
 * "Newsletter" and " NEWSLETTER " are one source, "newsletter", in `count --source` either way, in
 * the studio's filter and in the funnel; the database itself holds every writer to that form.
 */
let server: TestServer
let database: OpenedDatabase
let studio: StudioProcess
let scratch: string

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } })
  database = await openDatabase({ dataDir: server.dataDir, purpose: 'test', besideServer: true })
  scratch = await mkdtemp(join(tmpdir(), 'one-source-'))
})

afterAll(async () => {
  await studio?.stop()
  await database?.close()
  await server?.cleanup()
  await stopBackends()
  await rm(scratch, { recursive: true, force: true })
})

const cli = cliOf(() => server)

describe('a source', () => {
  it('is stored trimmed and in lower case, from the page and from an import', async () => {
    const page = { Origin: server.url, Referer: `${server.url}/?utm_source=Newsletter`, 'User-Agent': CHROME }
    expect((await postWaitlist(server, { email: 'from.page@example.com' }, page)).status).toBe(201)
    const file = join(scratch, 'list.csv')
    await writeFile(
      file,
      'email,source\r\nfrom.list@example.com,Newsletter\r\nshouted@example.com, NEWSLETTER \r\n',
    )
    expect((await cli('import', file)).code).toBe(0)
    const rows = await database.db.query<{ source: string }>(
      `select source from public.waitlist where email like '%@example.com' order by source`,
    )
    expect(rows.map((row) => row.source)).toEqual(['newsletter', 'newsletter', 'newsletter'])
  })

  it('is refused by the database in any other form, whoever writes it', async () => {
    await expect(
      database.db.query(
        `insert into public.waitlist (email, source) values ('direct.sql@example.com', 'Newsletter')`,
      ),
    ).rejects.toMatchObject({ code: '23514' })
  })

  it('is one in `count --source`, whichever way it is typed', async () => {
    for (const typed of ['Newsletter', 'newsletter', ' NEWSLETTER '])
      expect((await cli('count', '--source', typed)).stdout, typed).toBe('3\n')
  })

  it('is one in the studio’s filter', async () => {
    studio = await startStudioProcess(server.env)
    const response = await fetch(`${studio.origin}/api/entries?source=Newsletter`, {
      headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { matching: number; entries: { source: string }[] }
    expect(body.matching).toBe(3)
    expect(new Set(body.entries.map((entry) => entry.source))).toEqual(new Set(['newsletter']))
  })

  it('is one row in the funnel by source', async () => {
    const result = await cli('funnel', '--by', 'source', '--json')
    expect(result.code, result.stderr).toBe(0)
    const rows = (JSON.parse(result.stdout) as { rows: { source?: string | null }[] }).rows
    const named = rows.filter((row) => row.source?.toLowerCase() === 'newsletter')
    expect(named.map((row) => row.source)).toEqual(['newsletter'])
  })

  it('was put in that form for the entries kept before (migration 20261207530000)', async () => {
    const migration = await readFile('supabase/migrations/20261207530000_source_one_form.sql', 'utf8')
    await database.db.query('alter table public.waitlist drop constraint waitlist_source_one_form')
    await database.db.query(
      `insert into public.waitlist (email, source) values ('kept.before@example.com', ' Newsletter '),
              ('blank.before@example.com', '  ')`,
    )
    await database.db.exec(migration)
    const rows = await database.db.query<{ email: string; source: string | null }>(
      `select email::text, source from public.waitlist where email like '%.before@example.com' order by email`,
    )
    expect(rows).toEqual([
      { email: 'blank.before@example.com', source: null },
      { email: 'kept.before@example.com', source: 'newsletter' },
    ])
    expect((await cli('count', '--source', 'Newsletter')).stdout).toBe('4\n')
  })
})
