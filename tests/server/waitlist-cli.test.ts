import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { freshDataDir } from '../../harness/data-dir'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { type CliResult, runCli } from '../../harness/waitlist-cli'
import { parseCsv } from '../../owner/cli/csv-reader'
import { checkImportFile, importRecords } from '../../owner/cli/import-records'
import { loadApiKeys } from '../../server/auth/api-keys'
import { verifyKey } from '../../server/auth/verify-key'
import { openPostgres } from '../../server/db/postgres-driver'
import { linkKeys } from '../../server/mail/messages/link-seals'
import { toCsv } from '../../server/waitlist/admin/csv'
import { emailProblem } from '../../server/waitlist/admin/email-rule'
import { insertStatus } from '../reliability/support'

// Valid under the database's WHATWG grammar, yet awkward for CSV and shells.
const TRICKY = [
  "o'brien+list@example.com",
  'first.last@sub.example.co',
  "a!#$%&'*+/=?^_`{|}~-@example.org",
  'UPPER@Example.COM',
]

function cli(dataDir: string, ...rest: (string | Record<string, string>)[]): Promise<CliResult> {
  const env = rest.find((item): item is Record<string, string> => typeof item === 'object') ?? {}
  const args = rest.filter((item): item is string => typeof item === 'string')
  return runCli({ DATA_DIR: dataDir, ...env }, ...args)
}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
  for (const email of TRICKY) {
    const response = await fetch(`${server.url}/rest/v1/waitlist`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email }),
    })
    expect(response.status).toBe(201)
  }
})
afterAll(async () => {
  await server?.cleanup()
})

describe('the waitlist CLI', () => {
  it('follows a first start that printed no service_role key: its output is a pipe, not a terminal', () => {
    expect(server.output()).toContain('Generated a JWT secret')
    expect(server.output()).toContain('npm run waitlist -- keys')
    expect(server.output()).not.toContain(server.serviceKey)
  })

  it('reads the list beside the running server, which keeps serving', async () => {
    const count = await cli(server.dataDir, 'count')
    expect(count.stdout.trim()).toBe(String(TRICKY.length))
    const csv = (await cli(server.dataDir, 'export')).stdout
    expect(
      parseCsv(csv)
        .slice(1)
        .map((row) => row[0]),
    ).toEqual(TRICKY)
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    expect(await insertStatus(server, 'beside.cli@example.com')).toBe(201)
    expect((await cli(server.dataDir, 'count')).stdout.trim()).toBe(String(TRICKY.length + 1))
    const keys = await cli(server.dataDir, 'keys')
    expect(keys.stdout).toMatch(/^anon: +\S+\nservice_role: +\S+\ninvite_code: +[\w-]{43}\n$/)
  })

  it('url: a postgres:// string for psql and friends, on 127.0.0.1; the server itself on a private socket', async () => {
    const { stdout } = await cli(server.dataDir, 'url')
    const url = new URL(stdout.trim())
    expect(url.protocol).toBe('postgres:')
    expect(url.hostname).toBe('127.0.0.1')
    expect(url.password.length).toBeGreaterThanOrEqual(24)
    const db = await openPostgres(stdout.trim(), 1)
    try {
      const [settings] = await db.query<Record<string, string>>(
        `select current_setting('fsync') as fsync, current_setting('synchronous_commit') as synchronous_commit,
                current_setting('full_page_writes') as full_page_writes,
                current_setting('listen_addresses') as listen_addresses,
                current_setting('unix_socket_directories') as sockets,
                (select count(*)::text from public.waitlist) as rows,
                (select count(*)::text from pg_stat_activity where backend_type = 'client backend'
                   and pid <> pg_backend_pid() and client_addr is not null) as others_over_tcp`,
      )
      expect(settings).toEqual({
        fsync: 'on',
        synchronous_commit: 'on',
        full_page_writes: 'on',
        listen_addresses: '127.0.0.1',
        sockets: join(server.dataDir, 'socket'),
        rows: String(TRICKY.length + 1),
        // The server's own connections go through the private socket, never TCP.
        others_over_tcp: '0',
      })
    } finally {
      await db.close()
    }
    // The password is the only way in.
    const wrong = new URL(url)
    wrong.password = 'not-the-password'
    const refused = await openPostgres(wrong.toString(), 1).then(
      (db) => db.close().then(() => 'connected'),
      (error: { code?: string }) => error.code,
    )
    expect(refused).toBe('28P01')
    const mode = (await stat(join(server.dataDir, 'postgres-password'))).mode & 0o777
    expect(mode.toString(8)).toBe('600')
    // Only the cluster's account (and root) may enter the socket's directory.
    const socketDir = await stat(join(server.dataDir, 'socket'))
    expect((socketDir.mode & 0o777).toString(8)).toBe('700')
    expect(socketDir.uid).toBe((await stat(join(server.dataDir, 'postgres'))).uid)
  })

  it('counts, lists and exports once the server has stopped, starting the cluster itself', async () => {
    const db = await openPostgres((await cli(server.dataDir, 'url')).stdout.trim(), 1)
    await db.query('delete from public.waitlist where email = $1', ['beside.cli@example.com'])
    await db.close()
    await server.stop()
    const count = await cli(server.dataDir, 'count')
    expect(count.stdout.trim()).toBe(String(TRICKY.length))
    expect(await cli(server.dataDir, 'url')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/No server is running/),
    })

    const list = await cli(server.dataDir, 'list')
    const lines = list.stdout.trim().split('\n')
    expect(lines).toHaveLength(TRICKY.length)
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z {2}o'brien\+list@example\.com {2}waiting$/,
    )

    const none = await cli(server.dataDir, 'list', '--since', '2999-01-01')
    expect(none.stdout).toBe('')

    const out = join(server.dataDir, 'export.csv')
    await cli(server.dataDir, 'export', '--out', out)
    const csv = await readFile(out, 'utf8')
    expect(csv.endsWith('\r\n')).toBe(true)
    const [header, ...rows] = parseCsv(csv)
    expect(header).toEqual([
      'email',
      'created_at',
      'status',
      'confirmed_at',
      'invited_at',
      'unsubscribed_at',
      'bounced_at',
      'joined_at',
      'source',
      'answer_role',
      'answer_organisation',
      'answer_use_case',
      'tags',
      'note',
      'consent_at',
      'consent_door',
      'consent_words',
      'consent_agent',
      'confirmed_from',
      'name',
    ])
    // The database keeps the letter case it was given; uniqueness ignores it.
    expect(rows.map((row) => row[0])).toEqual(TRICKY)
  })

  it('export --out leaves the file at mode 0600, also when it existed with a wider mode', async () => {
    const out = join(server.dataDir, 'existing.csv')
    await writeFile(out, 'old contents\n', { mode: 0o644 })
    await chmod(out, 0o644)
    expect(await cli(server.dataDir, 'export', '--out', out)).toMatchObject({ code: 0 })
    expect(((await stat(out)).mode & 0o777).toString(8)).toBe('600')
    expect(await readFile(out, 'utf8')).toMatch(
      /^email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at,joined_at,source,answer_role,answer_organisation,answer_use_case,tags,note,consent_at,consent_door,consent_words,consent_agent,confirmed_from,name\r\n/,
    )
    const fresh = join(server.dataDir, 'fresh.csv')
    expect(await cli(server.dataDir, 'export', '--out', fresh)).toMatchObject({ code: 0 })
    expect(((await stat(fresh)).mode & 0o777).toString(8)).toBe('600')
  })

  it('prints the anon and service_role keys, which verify against the data dir secret', async () => {
    const { stdout } = await cli(server.dataDir, 'keys')
    const anon = /anon:\s+(\S+)/.exec(stdout)?.[1] ?? ''
    const service = /service_role:\s+(\S+)/.exec(stdout)?.[1] ?? ''
    const { secret } = await loadApiKeys({ dataDir: server.dataDir, databaseUrl: undefined })
    expect((await verifyKey(secret, anon)).role).toBe('anon')
    expect((await verifyKey(secret, service)).role).toBe('service_role')
    // The invite-code key, which the beta product checks codes with, is the one the server signs them with.
    const inviteKey = /invite_code:\s+(\S+)/.exec(stdout)?.[1] ?? ''
    expect(Buffer.from(inviteKey, 'base64url').equals(linkKeys(secret).inviteCode)).toBe(true)
  })

  it('explains itself on a bad command or option', async () => {
    const bad = await cli(server.dataDir, 'drop-everything')
    expect(bad).toMatchObject({ code: 2 })
    expect((bad as { stderr: string }).stderr).toContain('Usage: npm run waitlist')
    const badDate = await cli(server.dataDir, 'list', '--since', 'yesterday-ish')
    expect(badDate).toMatchObject({ code: 2 })
  })
})

describe('the waitlist CLI on an empty data dir', () => {
  it('counts 0 and exports only the header', async () => {
    const fresh = await freshDataDir()
    try {
      expect((await cli(fresh.dir, 'count')).stdout).toBe('0\n')
      expect((await cli(fresh.dir, 'export')).stdout).toBe(
        'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at,joined_at,source,' +
          'answer_role,answer_organisation,answer_use_case,tags,note,consent_at,consent_door,consent_words,' +
          'consent_agent,confirmed_from,name\r\n',
      )
    } finally {
      await fresh.cleanup()
    }
  })
})

describe('the waitlist CLI on DATABASE_URL', () => {
  let url: string
  beforeAll(async () => {
    url = await sharedPostgresUrl()
    const db = await openPostgres(url)
    for (const email of TRICKY) await db.query('insert into public.waitlist (email) values ($1)', [email])
    await db.close()
  })
  afterAll(stopBackends)

  it('reads the same list from Postgres, beside any running server', async () => {
    const env = { DATABASE_URL: url }
    expect((await cli('/nonexistent-data-dir', 'count', env)).stdout).toBe(`${TRICKY.length}\n`)
    const since = await cli('/nonexistent-data-dir', 'count', env, '--since', '2999-01-01')
    expect(since.stdout).toBe('0\n')
    const csv = (await cli('/nonexistent-data-dir', 'export', env)).stdout
    expect(
      parseCsv(csv)
        .slice(1)
        .map((row) => row[0]),
    ).toEqual(TRICKY)
  })
})

describe('RFC 4180 CSV', () => {
  it('round-trips fields with quotes, commas, line breaks and unicode', () => {
    const rows = [
      ['"quoted"@example.com', '2024-01-01T00:00:00.000000Z'],
      ['comma,inside@example.com', 'line\r\nbreak'],
      ['ünïcødé@exämple.com', 'plain'],
      ['', 'empty first field'],
    ]
    const csv = toCsv(['email', 'created_at'], rows)
    expect(csv).toContain('"""quoted""@example.com"')
    expect(csv).toContain('"comma,inside@example.com"')
    expect(parseCsv(csv)).toEqual([['email', 'created_at'], ...rows])
  })
})

describe('CSV for spreadsheets (formula injection)', () => {
  // Valid addresses a spreadsheet would run as formulas, and ones that begin with '.
  const FORMULAS = [
    '=1+1-x@example.com',
    '+x@example.com',
    '-x@example.com',
    "'x@example.com",
    "''=x@example.com",
  ]
  const WHEN = '2024-11-01T09:00:00.000000Z'

  it('uses addresses the database accepts; @x… is not one', () => {
    for (const email of FORMULAS) expect(emailProblem(email), email).toBeUndefined()
    expect(emailProblem('@x@example.com')).toBe('not a valid e-mail address')
  })

  it("writes each such cell quoted with a leading ', so no cell starts a formula", () => {
    const csv = toCsv(
      ['email', 'created_at'],
      [...FORMULAS, '@cmd', '\tx', '\rx'].map((email) => [email, WHEN]),
    )
    const lines = csv.split('\r\n').slice(1, -1)
    expect(lines.slice(0, 5)).toEqual([
      `"'=1+1-x@example.com",${WHEN}`,
      `"'+x@example.com",${WHEN}`,
      `"'-x@example.com",${WHEN}`,
      `"''x@example.com",${WHEN}`,
      `"'''=x@example.com",${WHEN}`,
    ])
    for (const record of parseCsvRaw(csv).slice(1)) expect(record[0], record[0]).toMatch(/^'/)
    expect(
      parseCsv(csv)
        .slice(1)
        .map((row) => row[0]),
    ).toEqual([...FORMULAS, '@cmd', '\tx', '\rx'])
  })

  it("import reads back exactly what export wrote; an unquoted leading ' is kept as it is", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'csv-formulas-'))
    try {
      const exported = join(dir, 'export.csv')
      await writeFile(
        exported,
        toCsv(
          ['email', 'created_at'],
          FORMULAS.map((email) => [email, WHEN]),
        ),
      )
      const read = await readRecords(exported)
      expect(read.filter((record) => record.problems.length > 0)).toEqual([])
      expect(read.map((record) => record.staged?.[0])).toEqual(FORMULAS)
      // A file saved by a spreadsheet (or an older export) has no quotes: nothing is taken off.
      const plain = join(dir, 'plain.csv')
      await writeFile(plain, `email,created_at\r\n'x@example.com,${WHEN}\r\n''=y@example.com,${WHEN}\r\n`)
      expect((await readRecords(plain)).map((record) => record.staged?.[0])).toEqual([
        "'x@example.com",
        "''=y@example.com",
      ])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

/** What import reads from a file, without a database. */
async function readRecords(path: string) {
  const records = []
  for await (const chunk of importRecords(path, await checkImportFile(path))) records.push(...chunk)
  return records
}

/** Records as a spreadsheet sees them: fields unquoted, nothing taken off. */
function parseCsvRaw(csv: string): string[][] {
  return parse(csv, { relax_column_count: true }) as string[][]
}
