import { join } from 'node:path'
import { openPostgres } from '../server/db/postgres-driver'
import { sharedPostgresUrl } from './backends'
import { type Catalog, type Column, type Policy, type Relation, readCatalog } from './schema-catalog'

/** The schema as the migrations leave it, for people to read: written by `npm run schema`. */
export const SCHEMA_FILE = join(import.meta.dirname, '..', 'supabase', 'schema.sql')

/** Strings in byte order, as `collate "C"` sorts them, whatever the machine's locale. */
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function header(catalog: Catalog): string[] {
  return [
    `-- The schema as supabase/migrations/ leaves it, through ${catalog.lastMigration}.`,
    '-- Generated from the catalogs of a database the migrations built (harness/schema-sql.ts): do not edit.',
    '-- After changing a migration, regenerate it with `npm run schema` and commit it with the migration;',
    '-- tests/server/schema-file.test.ts fails while it is out of date. It is for reading: the migrations',
    '-- are the one source of the schema and what applies it. Grants to the owner are left out, as is its name.',
  ]
}

function section(title: string, lines: string[]): string[] {
  return lines.length === 0 ? [] : ['', `-- ${title}`, '', ...lines]
}

function roleLine(role: Catalog['roles'][number]): string {
  const attributes = [
    role.superuser && 'SUPERUSER',
    role.createdb && 'CREATEDB',
    role.createrole && 'CREATEROLE',
    role.login ? 'LOGIN' : 'NOLOGIN',
    role.inherit ? 'INHERIT' : 'NOINHERIT',
    role.replication && 'REPLICATION',
    role.bypassrls && 'BYPASSRLS',
  ].filter(Boolean)
  return `CREATE ROLE ${role.name} ${attributes.join(' ')};`
}

function columnLine(column: Column): string {
  const parts = [column.name, column.type]
  if (column.collation) parts.push(`COLLATE ${column.collation}`)
  if (column.identity)
    parts.push(`GENERATED ${column.identity === 'a' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY`)
  else if (column.generated)
    parts.push(
      `GENERATED ALWAYS AS (${column.expression}) ${column.generated === 's' ? 'STORED' : 'VIRTUAL'}`,
    )
  else if (column.expression !== null) parts.push(`DEFAULT ${column.expression}`)
  if (column.not_null) parts.push('NOT NULL')
  return parts.join(' ')
}

function tableBlock(table: Relation, catalog: Catalog): string[] {
  const body = [
    ...catalog.columns.filter((c) => c.oid === table.oid).map(columnLine),
    ...catalog.constraints
      .filter((c) => c.oid === table.oid)
      .map((c) => `CONSTRAINT ${c.name} ${c.definition}`),
  ]
  const options = table.options ? ` WITH (${table.options})` : ''
  return [
    `CREATE ${table.unlogged ? 'UNLOGGED ' : ''}TABLE ${table.name} (`,
    ...body.map((line, index) => `    ${line}${index < body.length - 1 ? ',' : ''}`),
    `)${options};`,
    '',
  ]
}

function viewBlock(view: Relation): string[] {
  const kind = view.kind === 'm' ? 'MATERIALIZED VIEW' : 'VIEW'
  const options = view.options ? ` WITH (${view.options})` : ''
  return [`CREATE ${kind} ${view.name}${options} AS`, `${view.query?.trimEnd()}`, '']
}

function sequenceLine(relation: Relation, catalog: Catalog): string {
  const s = catalog.sequences.find((each) => each.oid === relation.oid)
  if (!s) return `CREATE SEQUENCE ${relation.name};`
  return (
    `CREATE SEQUENCE ${relation.name} AS ${s.type} START ${s.start} INCREMENT ${s.increment} ` +
    `MINVALUE ${s.min} MAXVALUE ${s.max} CACHE ${s.cache}${s.cycle ? ' CYCLE' : ''};`
  )
}

const COMMANDS = { r: 'SELECT', a: 'INSERT', w: 'UPDATE', d: 'DELETE', '*': 'ALL' } as const

function securityLines(catalog: Catalog): string[] {
  return catalog.relations
    .filter((r) => r.kind === 'r')
    .flatMap((table) => [
      `ALTER TABLE ${table.name} ${table.rls ? 'ENABLE' : 'DISABLE'} ROW LEVEL SECURITY;`,
      ...(table.forced ? [`ALTER TABLE ${table.name} FORCE ROW LEVEL SECURITY;`] : []),
    ])
}

function policyBlock(policy: Policy): string[] {
  const lines = [
    `CREATE POLICY ${policy.name} ON ${policy.table}`,
    `    AS ${policy.permissive ? 'PERMISSIVE' : 'RESTRICTIVE'} FOR ${COMMANDS[policy.command]}`,
    `    TO ${policy.roles.join(', ')}`,
    ...(policy.using === null ? [] : [`    USING (${policy.using})`]),
    ...(policy.check === null ? [] : [`    WITH CHECK (${policy.check})`]),
  ]
  return [...lines.slice(0, -1), `${lines.at(-1)};`, '']
}

const PRIVILEGE_ORDER = [
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'TRUNCATE',
  'REFERENCES',
  'TRIGGER',
  'MAINTAIN',
]
const privilegeRank = (name: string) => {
  const rank = PRIVILEGE_ORDER.indexOf(name)
  return rank === -1 ? PRIVILEGE_ORDER.length : rank
}

interface Grant {
  target: string
  grantee: string
  grantable: boolean
  /** A column privilege's name; undefined for one on the whole object. */
  columnPrivilege?: string
  /** The privileges granted on the object, or the columns of the column privilege. */
  names: string[]
}

/** One GRANT per object, grantee and grant option; one per column privilege, its columns listed. */
function grantLines(catalog: Catalog): string[] {
  const grants = new Map<string, Grant>()
  for (const p of catalog.privileges) {
    const columnPrivilege = p.column === null ? undefined : p.privilege
    const key = JSON.stringify([p.kind, p.object, p.grantee, p.grantable, columnPrivilege])
    const grant = grants.get(key) ?? {
      target: `${p.kind} ${p.object}`,
      grantee: p.grantee,
      grantable: p.grantable,
      columnPrivilege,
      names: [],
    }
    grant.names.push(p.column ?? p.privilege)
    grants.set(key, grant)
  }
  return [...grants.values()].map((grant) => {
    const what = grant.columnPrivilege
      ? `${grant.columnPrivilege} (${grant.names.join(', ')})`
      : privilegesText(grant.names, grant.target.startsWith('TABLE ') ? catalog.tablePrivileges : [])
    return `GRANT ${what} ON ${grant.target} TO ${grant.grantee}${grant.grantable ? ' WITH GRANT OPTION' : ''};`
  })
}

function privilegesText(granted: string[], all: string[]): string {
  if (all.length > 1 && all.every((each) => granted.includes(each))) return 'ALL'
  return [...granted].sort((a, b) => privilegeRank(a) - privilegeRank(b) || byBytes(a, b)).join(', ')
}

/** The file's text, from a catalog read by readCatalog: the same catalog always gives the same bytes. */
export function renderSchema(catalog: Catalog): string {
  const kind = (k: Relation['kind']) => catalog.relations.filter((r) => r.kind === k)
  const lines = [
    ...header(catalog),
    ...section(
      'Schemas',
      catalog.schemas.map((s) => `CREATE SCHEMA IF NOT EXISTS ${s.name};`),
    ),
    ...section(
      'Extensions',
      catalog.extensions.map((e) => `CREATE EXTENSION IF NOT EXISTS ${e.name} WITH SCHEMA ${e.schema};`),
    ),
    ...section('Roles the grants and policies name', catalog.roles.map(roleLine)),
    ...section(
      'Sequences',
      kind('S').map((s) => sequenceLine(s, catalog)),
    ),
    ...section(
      'Tables',
      kind('r').flatMap((t) => tableBlock(t, catalog)),
    ),
    ...section('Views', [...kind('v'), ...kind('m')].flatMap(viewBlock)),
    ...section(
      'Indexes',
      catalog.indexes.map((i) => `${i.definition};`),
    ),
    ...section(
      'Functions',
      catalog.functions.flatMap((f) => [`${f.definition.trimEnd()};`, '']),
    ),
    ...section('Triggers', triggerLines(catalog)),
    ...section('Row-level security', securityLines(catalog)),
    ...section('Policies', catalog.policies.flatMap(policyBlock)),
    ...section("Grants (all the others are the owner's alone)", grantLines(catalog)),
    ...section(
      'Comments',
      [...catalog.comments]
        .sort((a, b) => byBytes(a.target, b.target))
        .map((c) => `COMMENT ON ${c.target} IS ${c.text};`),
    ),
  ]
  // Blocks end with a blank line; the file ends with exactly one newline.
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`
}

function triggerLines(catalog: Catalog): string[] {
  const states: Record<string, string> = {
    D: 'DISABLE TRIGGER',
    R: 'ENABLE REPLICA TRIGGER',
    A: 'ENABLE ALWAYS TRIGGER',
  }
  return catalog.triggers.flatMap((t) => [
    `${t.definition};`,
    ...(states[t.enabled] ? [`ALTER TABLE ${t.table} ${states[t.enabled]} ${t.name};`] : []),
  ])
}

/** Lines of context shown for each side of the first difference. */
const SHOWN_LINES = 6

/**
 * Why the committed file is not what the migrations build, with the command that writes it again
 * and the first lines that differ; undefined when it is up to date. `committed` is undefined
 * when there is no file.
 */
export function staleness(committed: string | undefined, generated: string): string | undefined {
  if (committed === generated) return undefined
  const fix = 'Run `npm run schema` and commit supabase/schema.sql with the migration.'
  if (committed === undefined) return `supabase/schema.sql does not exist. ${fix}`
  const was = committed.split('\n')
  const now = generated.split('\n')
  // Past the first line, which names the last migration: the schema's own change is the news.
  let line = 1
  while (line < Math.max(was.length, now.length) && was[line] === now[line]) line += 1
  if (line === Math.max(was.length, now.length)) line = 0
  const shown = (lines: string[], sign: string) =>
    lines.slice(line, line + SHOWN_LINES).map((l) => `${sign} ${l}`)
  return [
    `supabase/schema.sql is not the schema the migrations build. ${fix}`,
    `First difference at line ${line + 1} (- the file, + the migrations):`,
    ...shown(was, '-'),
    ...shown(now, '+'),
  ].join('\n')
}

/** The schema file's text for the database at `url`, which the migrations built. */
export async function schemaSqlOf(url: string): Promise<string> {
  const db = await openPostgres(url, 1)
  try {
    return renderSchema(await db.transaction(readCatalog))
  } finally {
    await db.close()
  }
}

/**
 * The schema file's text as the migrations in this checkout leave a database: a copy of the tests'
 * migrated template (harness/data-dir.ts, rebuilt when a migration changes), in this test run's
 * cluster, else in one this process starts and its caller stops (stopBackends).
 */
export async function migratedSchemaSql(): Promise<string> {
  return schemaSqlOf(await sharedPostgresUrl())
}
