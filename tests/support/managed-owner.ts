import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { API_ROLES } from '../../server/db/jwt-claims'

/** Runs statements on a URL as whoever it names, then disconnects. */
export async function runSql(url: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (const statement of statements) await client.query(statement)
  } finally {
    await client.end()
  }
}

export async function queryRows<Row>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, params)).rows as Row[]
  } finally {
    await client.end()
  }
}

export interface ManagedOwner {
  user: string
  password: string
}

/**
 * A database owner as RDS, Cloud SQL or Azure hand one out: LOGIN CREATEDB and, unless told
 * otherwise, CREATEROLE; never SUPERUSER nor BYPASSRLS. It owns a new, empty database `database`.
 */
export async function createManagedOwner(
  adminUrl: string,
  user: string,
  database: string,
  options: { createrole?: boolean } = {},
): Promise<ManagedOwner> {
  const password = randomBytes(12).toString('hex')
  const createrole = options.createrole === false ? 'nocreaterole' : 'createrole'
  await runSql(
    adminUrl,
    `create role ${user} login createdb ${createrole} nosuperuser nobypassrls password '${password}'`,
    `create database ${database} owner ${user}`,
  )
  return { user, password }
}

/**
 * Takes the API roles out of a cluster (dropping what refers to them in `databases` first), so a
 * first migration meets a cluster where they never existed, as on a new managed Postgres.
 */
export async function dropApiRoles(adminUrl: string, databases: string[]): Promise<void> {
  const roles = API_ROLES.join(', ')
  const present = await queryRows<{ n: number }>(
    adminUrl,
    'select count(*)::int as n from pg_roles where rolname = any($1)',
    [[...API_ROLES]],
  )
  if (!present[0]?.n) return
  for (const database of databases)
    await runSql(adminUrl.replace(/\/[^/?]*(\?|$)/, `/${database}$1`), `drop owned by ${roles} cascade`)
  await runSql(adminUrl, `drop role ${roles}`)
}
