import { StartupError } from '../base/startup-error'
import type { Queryable } from './database'
import { API_ROLES } from './jwt-claims'
import { quoteIdent } from './sql-identifier'

interface Owner {
  name: string
  superuser: boolean
  createrole: boolean
  /** server_version_num: 160000 and later keep a role's creator out of it (no SET by default). */
  version: number
}

async function owner(db: Queryable): Promise<Owner> {
  const [row] = await db.query<Owner>(
    `select current_user as name, rolsuper as superuser, rolcreaterole as createrole,
            current_setting('server_version_num')::int as version
       from pg_roles where rolname = current_user`,
  )
  if (!row) throw new Error('current_user is not in pg_roles')
  return row
}

/** The SQL a DBA runs once so that `name` needs no CREATEROLE: the roles, and `name` in them. */
export function rolesByDba(name: string, missing: readonly string[]): string {
  return [
    ...missing.map((role) => `CREATE ROLE ${role} NOLOGIN NOINHERIT;`),
    `GRANT ${API_ROLES.join(', ')} TO ${quoteIdent(name)};`,
  ]
    .map((line) => `  ${line}`)
    .join('\n')
}

/**
 * Before the first migration: the roles must exist, or this user must be able to create them
 * (CREATEROLE). Otherwise the start stops here, naming the privilege and the DBA's SQL, rather
 * than in a migration with PostgreSQL's "permission denied to create role".
 */
export async function checkApiRolesCanBeMade(db: Queryable): Promise<void> {
  const present = await db.query<{ rolname: string }>(
    'select rolname from pg_roles where rolname = any($1)',
    [[...API_ROLES]],
  )
  const missing = API_ROLES.filter((role) => !present.some((row) => row.rolname === role))
  if (missing.length === 0) return
  const user = await owner(db)
  if (user.superuser || user.createrole) return
  throw new StartupError(
    `The database user ${quoteIdent(user.name)} cannot create the roles the API keys act as (${missing.join(', ')}): ` +
      'it lacks the CREATEROLE privilege. Either give it CREATEROLE, or have an administrator run this once, ' +
      `after which the server needs no CREATEROLE:\n${rolesByDba(user.name, missing)}`,
  )
}

/**
 * After the migrations: this user must be able to `set role` to each API role. PostgreSQL 15 and
 * older let a CREATEROLE user grant itself any role; 16 and later make a role's creator its
 * administrator but not a member, so it grants itself membership (SET, without inheriting the
 * role's rights). A user that can do neither gets the GRANT to ask an administrator for.
 */
export async function joinApiRoles(db: Queryable): Promise<void> {
  const user = await owner(db)
  if (user.superuser) return
  const option = user.version >= 160000 ? 'SET' : 'MEMBER'
  const outside = await db.query<{ rolname: string }>(
    `select rolname from pg_roles where rolname = any($1) and not pg_has_role(current_user, oid, '${option}')`,
    [[...API_ROLES]],
  )
  for (const { rolname } of outside) {
    const grant = `grant ${quoteIdent(rolname)} to current_user`
    try {
      await db.exec(user.version >= 160000 ? `${grant} with inherit false, set true` : grant)
    } catch (error) {
      throw new StartupError(
        `The database user ${quoteIdent(user.name)} cannot act as ${rolname} (set role), which every request needs, ` +
          `and cannot grant itself that role (${(error as Error).message}). Have an administrator run:\n` +
          `  GRANT ${API_ROLES.join(', ')} TO ${quoteIdent(user.name)};`,
      )
    }
  }
}
