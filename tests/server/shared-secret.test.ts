import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { loadApiKeys } from '../../server/auth/api-keys'
import { openPostgres } from '../../server/db/postgres-driver'

afterAll(stopBackends)

/** The anon key a server writes into its page, as a visitor's browser gets it. */
async function pageAnonKey(server: TestServer): Promise<string> {
  const html = await (await fetch(`${server.url}/`)).text()
  const key = /<meta name="supabase-anon-key" content="([^"]+)"/.exec(html)?.[1]
  if (!key) throw new Error('no anon key in the page')
  return key
}

function insertAt(server: TestServer, key: string, email: string): Promise<Response> {
  return fetch(`${server.url}/rest/v1/waitlist`, {
    method: 'POST',
    headers: { apikey: key, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email }),
  })
}

describe('several servers on one DATABASE_URL, no JWT_SECRET (ADR 027)', () => {
  let url: string
  let parent: string
  let servers: TestServer[] = []
  beforeAll(async () => {
    url = await sharedPostgresUrl()
    parent = await mkdtemp(join(tmpdir(), 'lab-site-shared-'))
    // DATA_DIRs that do not exist: with DATABASE_URL nothing should create them.
    // Started together: both find the table empty, one insert wins, both read the winner's secret.
    servers = await Promise.all(
      ['a', 'b'].map((name) => startTestServer({ dataDir: join(parent, name), env: { DATABASE_URL: url } })),
    )
  })
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.cleanup()))
    await rm(parent, { recursive: true, force: true })
  })

  it("a key from one server's page works at the other, and the CLI prints the same keys", async () => {
    const [a, b] = servers as [TestServer, TestServer]
    const fromA = await pageAnonKey(a)
    const fromB = await pageAnonKey(b)
    expect((await insertAt(b, fromA, 'from.a@example.com')).status).toBe(201)
    expect((await insertAt(a, fromB, 'from.b@example.com')).status).toBe(201)
    const keys = await runCli({ DATABASE_URL: url, DATA_DIR: a.dataDir }, 'keys')
    expect(keys.code).toBe(0)
    expect(keys.stdout).toContain(`anon:         ${fromA}\n`)
    const read = await fetch(`${a.url}/rest/v1/waitlist?select=email&order=email`, {
      headers: { apikey: b.serviceKey, Authorization: `Bearer ${b.serviceKey}` },
    })
    expect(await read.json()).toEqual([{ email: 'from.a@example.com' }, { email: 'from.b@example.com' }])
  })

  it('keeps the one secret where only the owner reads it, and writes nothing to DATA_DIR', async () => {
    const db = await openPostgres(url, 1)
    try {
      expect(await db.query('select count(*)::int as n from private.jwt_secret')).toEqual([{ n: 1 }])
      for (const role of ['anon', 'authenticated', 'service_role']) {
        const read = db.transaction(async (tx) => {
          await tx.exec(`set local role ${role}`)
          return tx.query('select secret from private.jwt_secret')
        })
        await expect(read).rejects.toMatchObject({ code: '42501' })
      }
    } finally {
      await db.close()
    }
    expect(await readdir(parent)).toEqual([])
  })
})

describe('moving to DATABASE_URL', () => {
  it('the first server carries its DATA_DIR/jwt-secret into the database, so keys handed out stay valid', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lab-site-carry-'))
    const db = await openPostgres(await sharedPostgresUrl(), 1)
    try {
      await writeFile(join(dataDir, 'jwt-secret'), `${'c'.repeat(48)}\n`, { mode: 0o600 })
      const before = await loadApiKeys({ dataDir, databaseUrl: undefined })
      const shared = await loadApiKeys({ dataDir, databaseUrl: 'postgres://', db })
      expect(shared.anonKey).toBe(before.anonKey)
      expect(shared).toMatchObject({ generated: false, keptIn: 'the database (private.jwt_secret)' })
      // Read back from the database, with the file gone: the same keys.
      await rm(join(dataDir, 'jwt-secret'))
      expect((await loadApiKeys({ dataDir, databaseUrl: 'postgres://', db })).anonKey).toBe(before.anonKey)
    } finally {
      await db.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
