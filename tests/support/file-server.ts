import { afterAll, beforeAll } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer, type TestServerOptions } from '../../harness/test-server'
import type { Database } from '../../server/db/database'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { openPostgres } from '../../server/db/postgres-driver'

/** A test server's database (its data dir, or its DATABASE_URL) as the owner opens it, running or not. */
export function openBesideServer(server: TestServer): Promise<OpenedDatabase> {
  return openDatabase({
    databaseUrl: server.env.DATABASE_URL,
    dataDir: server.dataDir,
    purpose: 'test',
    besideServer: true,
  })
}

/** What a file's hooks opened: read inside a test or a hook, never at the file's top. */
export interface FileServer {
  readonly server: TestServer
  /** The owner's connection beside the server; only with `{ database: true }`. */
  readonly database: OpenedDatabase
}

function opened<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is opened in beforeAll: read it inside a test`)
  return value
}

/**
 * One real server for the tests of a file that keeps its own module-level helpers (an MCP client,
 * a page loader), started before the first test and stopped after the last. Files whose tests can
 * take the server as a fixture use serverTest (fixtures.ts) instead.
 */
export function fileServer(options: TestServerOptions & { database?: boolean } = {}): FileServer {
  let server: TestServer | undefined
  let database: OpenedDatabase | undefined
  beforeAll(async () => {
    server = await startTestServer(options)
    if (options.database) database = await openBesideServer(server)
  })
  afterAll(async () => {
    await database?.close()
    await server?.cleanup()
  })
  return {
    get server() {
      return opened(server, 'The server')
    },
    get database() {
      return opened(database, 'The database (fileServer({ database: true }))')
    },
  }
}

/**
 * The shared PostgreSQL of the run (harness/backends.ts) for a file's queries, as a pool of
 * `connections`, closed after the file's last test.
 */
export function sharedPostgres(connections: number): { readonly db: Database } {
  let db: Database | undefined
  beforeAll(async () => {
    db = await openPostgres(await sharedPostgresUrl(), connections)
  })
  afterAll(async () => {
    await db?.close()
    await stopBackends()
  })
  return {
    get db() {
      return opened(db, 'The shared PostgreSQL')
    },
  }
}
