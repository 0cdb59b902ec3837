import type { Queryable } from '../server/db/database'

/**
 * What the migrations leave in a database, read from PostgreSQL's catalogs (there is no pg_dump
 * among the npm binaries, and Debian's refuses a newer server). Every name comes quoted as SQL
 * writes it and every list in one order (by schema, then name, in bytes: `collate "C"`), so the
 * same migrations read the same on any machine. OIDs only join rows; they are never kept.
 * Read under an empty search_path, so every name outside pg_catalog comes schema-qualified.
 */

/** The schemas shown: every one but PostgreSQL's own and the migrations' bookkeeping. */
const SCHEMAS = `select oid, nspname from pg_catalog.pg_namespace
  where nspname not like 'pg\\_%' and nspname not in ('information_schema', 'supabase_migrations')`

/** An object an extension created (citext's functions, pg_trgm's operators): the extension stands for it. */
const memberOfExtension = (catalog: string, oid: string) =>
  `exists (select 1 from pg_depend d where d.classid = '${catalog}'::regclass and d.objid = ${oid} and d.deptype = 'e')`

const qualified = (schema: string, name: string) => `quote_ident(${schema}) || '.' || quote_ident(${name})`

const LAST_MIGRATION = `select version || '_' || name || '.sql' as name
  from supabase_migrations.schema_migrations order by version desc limit 1`

const SCHEMA_LIST = `select quote_ident(nspname) as name from (${SCHEMAS}) s order by nspname collate "C"`

const EXTENSIONS = `select quote_ident(e.extname) as name, quote_ident(s.nspname) as schema
  from pg_extension e join (${SCHEMAS}) s on s.oid = e.extnamespace
  order by e.extname collate "C"`

/** Tables, views and sequences, but not the sequences behind identity columns (their column says it). */
const RELATIONS = `select c.oid, c.relkind as kind, ${qualified('s.nspname', 'c.relname')} as name,
    c.relpersistence = 'u' as unlogged, c.relrowsecurity as rls, c.relforcerowsecurity as forced,
    array_to_string(c.reloptions, ', ') as options,
    case when c.relkind in ('v', 'm') then pg_get_viewdef(c.oid, true) end as query
  from pg_class c join (${SCHEMAS}) s on s.oid = c.relnamespace
  where c.relkind in ('r', 'v', 'm', 'S') and not ${memberOfExtension('pg_class', 'c.oid')}
    and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass
                    and d.objid = c.oid and d.deptype = 'i')
  order by s.nspname collate "C", c.relname collate "C"`

const SEQUENCES = `select q.seqrelid as oid, format_type(q.seqtypid, null) as type, q.seqstart::text as start,
    q.seqincrement::text as increment, q.seqmin::text as min, q.seqmax::text as max,
    q.seqcache::text as cache, q.seqcycle as cycle
  from pg_sequence q where q.seqrelid = any($1::oid[])`

const COLUMNS = `select a.attrelid as oid, quote_ident(a.attname) as name,
    format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null,
    a.attidentity as identity, a.attgenerated as generated, pg_get_expr(d.adbin, d.adrelid) as expression,
    (select quote_ident(k.collname) from pg_collation k
      where k.oid = a.attcollation and a.attcollation <> t.typcollation) as collation
  from pg_attribute a join pg_type t on t.oid = a.atttypid
  left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
  where a.attrelid = any($1::oid[]) and a.attnum > 0 and not a.attisdropped
  order by a.attnum`

/** Keys, unique, foreign keys, checks, exclusions; NOT NULL (PostgreSQL 18 keeps it here too) goes on its column. */
const CONSTRAINTS = `select conrelid as oid, quote_ident(conname) as name, pg_get_constraintdef(oid) as definition
  from pg_constraint where conrelid = any($1::oid[]) and contype in ('p', 'u', 'f', 'c', 'x')
  order by position(contype in 'pufcx'), conname collate "C"`

/** Indexes of their own: a key's or a unique constraint's index is its constraint. */
const INDEXES = `select pg_get_indexdef(i.indexrelid) as definition
  from pg_index i join pg_class x on x.oid = i.indexrelid join pg_class c on c.oid = i.indrelid
  join pg_namespace s on s.oid = c.relnamespace
  where i.indrelid = any($1::oid[]) and not exists (select 1 from pg_constraint k
    where k.conindid = i.indexrelid and k.conrelid = i.indrelid and k.contype in ('p', 'u', 'x'))
  order by s.nspname collate "C", c.relname collate "C", x.relname collate "C"`

const FUNCTIONS = `select p.oid, case p.prokind when 'p' then 'PROCEDURE' else 'FUNCTION' end as kind,
    ${qualified('s.nspname', 'p.proname')} || '(' || pg_get_function_identity_arguments(p.oid) || ')' as signature,
    pg_get_functiondef(p.oid) as definition
  from pg_proc p join (${SCHEMAS}) s on s.oid = p.pronamespace
  where p.prokind in ('f', 'p') and not ${memberOfExtension('pg_proc', 'p.oid')}
  order by s.nspname collate "C", p.proname collate "C", pg_get_function_identity_arguments(p.oid) collate "C"`

const TRIGGERS = `select pg_get_triggerdef(t.oid) as definition, t.tgenabled as enabled,
    quote_ident(t.tgname) as name, ${qualified('s.nspname', 'c.relname')} as "table"
  from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace s on s.oid = c.relnamespace
  where t.tgrelid = any($1::oid[]) and not t.tgisinternal
  order by s.nspname collate "C", c.relname collate "C", t.tgname collate "C"`

const POLICIES = `select ${qualified('s.nspname', 'c.relname')} as "table", quote_ident(p.polname) as name,
    p.polpermissive as permissive, p.polcmd as command,
    array(select case when r = 0 then 'PUBLIC' else quote_ident(pg_get_userbyid(r)) end
            from unnest(p.polroles) r order by r <> 0, pg_get_userbyid(r) collate "C") as roles,
    array(select pg_get_userbyid(r)::text from unnest(p.polroles) r where r <> 0) as role_names,
    pg_get_expr(p.polqual, p.polrelid) as using, pg_get_expr(p.polwithcheck, p.polrelid) as check
  from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace s on s.oid = c.relnamespace
  where p.polrelid = any($1::oid[])
  order by s.nspname collate "C", c.relname collate "C", p.polname collate "C"`

/**
 * Every privilege on the schemas, relations, their columns and functions, as GRANT names it, but
 * those of the object's owner and of the role that ran the migrations (whose name is the
 * machine's). An ACL PostgreSQL left at its default is read as that default: a function nobody
 * revoked can be run by PUBLIC, and says so.
 */
const PRIVILEGES = `with objects as (
    select 0 as rank, 'SCHEMA' as kind, quote_ident(nspname) as object, null::text as "column", 0 as position,
      coalesce(nspacl, acldefault('n', nspowner)) as acl, nspowner as owner
    from pg_namespace where oid = any($1::oid[])
    union all
    select 1, case c.relkind when 'S' then 'SEQUENCE' else 'TABLE' end, ${qualified('s.nspname', 'c.relname')}, null, 0,
      coalesce(c.relacl, acldefault(case c.relkind when 'S' then 's' else 'r' end::"char", c.relowner)), c.relowner
    from pg_class c join pg_namespace s on s.oid = c.relnamespace where c.oid = any($2::oid[])
    union all
    select 1, 'TABLE', ${qualified('s.nspname', 'c.relname')}, quote_ident(a.attname), a.attnum, a.attacl, c.relowner
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace s on s.oid = c.relnamespace
    where a.attrelid = any($2::oid[]) and a.attacl is not null and not a.attisdropped
    union all
    select 2, case p.prokind when 'p' then 'PROCEDURE' else 'FUNCTION' end,
      ${qualified('s.nspname', 'p.proname')} || '(' || pg_get_function_identity_arguments(p.oid) || ')', null, 0,
      coalesce(p.proacl, acldefault('f', p.proowner)), p.proowner
    from pg_proc p join pg_namespace s on s.oid = p.pronamespace where p.oid = any($3::oid[])
  )
  select o.kind, o.object, o."column", x.privilege_type as privilege, x.is_grantable as grantable,
    case when x.grantee = 0 then 'PUBLIC' else quote_ident(pg_get_userbyid(x.grantee)) end as grantee,
    case when x.grantee <> 0 then pg_get_userbyid(x.grantee)::text end as role_name
  from objects o, aclexplode(o.acl) x
  where x.grantee <> o.owner and x.grantee <> (select oid from pg_roles where rolname = current_user)
  order by o.rank, o.object collate "C", x.grantee <> 0, pg_get_userbyid(x.grantee) collate "C",
    x.is_grantable, o.position`

/** Every privilege a table can be given, for `GRANT ALL`. */
const TABLE_PRIVILEGES = `select privilege_type as privilege from aclexplode(acldefault('r', 10))`

const ROLES = `select quote_ident(rolname) as name, rolsuper as superuser, rolinherit as inherit,
    rolcreaterole as createrole, rolcreatedb as createdb, rolcanlogin as login,
    rolreplication as replication, rolbypassrls as bypassrls
  from pg_roles where rolname = any($1::text[]) order by rolname collate "C"`

/**
 * COMMENT ON what this file shows: schemas, relations, columns and functions. Objects numbered below
 * 16384 are initdb's (public's "standard public schema"), not the migrations'.
 */
const COMMENTS = `select case when d.classoid = 'pg_namespace'::regclass then 'SCHEMA ' || quote_ident(n.nspname)
      when d.classoid = 'pg_proc'::regclass then f.kind || ' ' || f.signature
      when d.objsubid > 0 then 'COLUMN ' || r.name || '.' || quote_ident(a.attname)
      else case r.kind when 'v' then 'VIEW ' when 'm' then 'MATERIALIZED VIEW ' when 'S' then 'SEQUENCE '
             else 'TABLE ' end || r.name end as target,
    quote_literal(d.description) as text
  from pg_description d
  left join pg_namespace n on d.classoid = 'pg_namespace'::regclass and n.oid = d.objoid
  left join unnest($2::oid[], $3::text[], $4::text[]) as r(oid, kind, name)
    on d.classoid = 'pg_class'::regclass and r.oid = d.objoid
  left join pg_attribute a on r.oid is not null and a.attrelid = d.objoid and a.attnum = d.objsubid
  left join unnest($5::oid[], $6::text[], $7::text[]) as f(oid, kind, signature)
    on d.classoid = 'pg_proc'::regclass and f.oid = d.objoid
  where (n.oid = any($1::oid[]) or r.oid is not null or f.oid is not null)
    and d.objoid >= 16384`

/**
 * What a migration could create in these schemas that this reading would leave out: it names
 * them, and the file is not written until the reading shows them too.
 */
const UNSHOWN = `select pg_describe_object(classid, objid, 0) as object from (
    select 'pg_class'::regclass as classid, c.oid as objid from pg_class c
      where c.relnamespace = any($1::oid[]) and c.relkind not in ('r', 'v', 'm', 'S', 'i', 't')
        and not ${memberOfExtension('pg_class', 'c.oid')}
    union all select 'pg_class'::regclass, inhrelid from pg_inherits
      where inhrelid in (select oid from pg_class where relnamespace = any($1::oid[]))
    union all select 'pg_type'::regclass, t.oid from pg_type t
      where t.typnamespace = any($1::oid[]) and t.typtype <> 'c' and t.typcategory <> 'A'
        and not ${memberOfExtension('pg_type', 't.oid')}
    union all select 'pg_proc'::regclass, p.oid from pg_proc p
      where p.pronamespace = any($1::oid[]) and p.prokind not in ('f', 'p')
        and not ${memberOfExtension('pg_proc', 'p.oid')}
    union all select 'pg_operator'::regclass, o.oid from pg_operator o
      where o.oprnamespace = any($1::oid[]) and not ${memberOfExtension('pg_operator', 'o.oid')}
    union all select 'pg_collation'::regclass, k.oid from pg_collation k where k.collnamespace = any($1::oid[])
    union all select 'pg_statistic_ext'::regclass, x.oid from pg_statistic_ext x
      where x.stxnamespace = any($1::oid[])
    union all select 'pg_rewrite'::regclass, w.oid from pg_rewrite w join pg_class c on c.oid = w.ev_class
      where c.relnamespace = any($1::oid[]) and w.rulename <> '_RETURN'
    union all select 'pg_default_acl'::regclass, a.oid from pg_default_acl a
      where a.defaclnamespace = any($1::oid[])
    union all select 'pg_event_trigger'::regclass, e.oid from pg_event_trigger e
  ) found`

export interface Relation {
  oid: number
  kind: 'r' | 'v' | 'm' | 'S'
  name: string
  unlogged: boolean
  rls: boolean
  forced: boolean
  options: string | null
  query: string | null
}

export interface Column {
  oid: number
  name: string
  type: string
  not_null: boolean
  identity: '' | 'a' | 'd'
  generated: '' | 's' | 'v'
  expression: string | null
  collation: string | null
}

export interface Sequence {
  oid: number
  type: string
  start: string
  increment: string
  min: string
  max: string
  cache: string
  cycle: boolean
}

export interface Fn {
  oid: number
  kind: 'FUNCTION' | 'PROCEDURE'
  signature: string
  definition: string
}

export interface Policy {
  table: string
  name: string
  permissive: boolean
  command: 'r' | 'a' | 'w' | 'd' | '*'
  roles: string[]
  role_names: string[]
  using: string | null
  check: string | null
}

export interface Privilege {
  kind: string
  object: string
  column: string | null
  privilege: string
  grantable: boolean
  grantee: string
  role_name: string | null
}

export interface Role {
  name: string
  superuser: boolean
  inherit: boolean
  createrole: boolean
  createdb: boolean
  login: boolean
  replication: boolean
  bypassrls: boolean
}

/** Everything the schema file shows, as the catalogs hold it. */
export interface Catalog {
  lastMigration: string
  schemas: { name: string }[]
  extensions: { name: string; schema: string }[]
  roles: Role[]
  relations: Relation[]
  sequences: Sequence[]
  columns: Column[]
  constraints: { oid: number; name: string; definition: string }[]
  indexes: { definition: string }[]
  functions: Fn[]
  triggers: { definition: string; enabled: string; name: string; table: string }[]
  policies: Policy[]
  privileges: Privilege[]
  tablePrivileges: string[]
  comments: { target: string; text: string }[]
}

async function readObjects(tx: Queryable) {
  const schemaOids = (await tx.query<{ oid: number }>(`select oid from (${SCHEMAS}) s`)).map((s) => s.oid)
  const unshown = await tx.query<{ object: string }>(UNSHOWN, [schemaOids])
  if (unshown.length > 0)
    throw new Error(
      `The schema file cannot show ${unshown.map((u) => u.object).join(', ')}: ` +
        'teach harness/schema-catalog.ts and harness/schema-sql.ts to read and write it.',
    )
  const relations = await tx.query<Relation>(RELATIONS)
  const functions = await tx.query<Fn>(FUNCTIONS)
  return { schemaOids, relations, functions }
}

/** Reads the catalog of the database `tx` is connected to, in one read-only transaction's snapshot. */
export async function readCatalog(tx: Queryable): Promise<Catalog> {
  await tx.query('set transaction isolation level repeatable read, read only')
  await tx.query("set local search_path = ''")
  const { schemaOids, relations, functions } = await readObjects(tx)
  const oids = relations.map((r) => r.oid)
  const tables = relations.filter((r) => r.kind === 'r').map((r) => r.oid)
  const functionOids = functions.map((f) => f.oid)
  const [last] = await tx.query<{ name: string }>(LAST_MIGRATION)
  const policies = await tx.query<Policy>(POLICIES, [tables])
  const privileges = await tx.query<Privilege>(PRIVILEGES, [schemaOids, oids, functionOids])
  const named = [...policies.flatMap((p) => p.role_names), ...privileges.flatMap((p) => p.role_name ?? [])]
  return {
    lastMigration: last?.name ?? '(none)',
    schemas: await tx.query(SCHEMA_LIST),
    extensions: await tx.query(EXTENSIONS),
    roles: await tx.query<Role>(ROLES, [[...new Set(named)]]),
    relations,
    sequences: await tx.query<Sequence>(SEQUENCES, [oids]),
    columns: await tx.query<Column>(COLUMNS, [tables]),
    constraints: await tx.query(CONSTRAINTS, [tables]),
    indexes: await tx.query(INDEXES, [oids]),
    functions,
    triggers: await tx.query(TRIGGERS, [oids]),
    policies,
    privileges,
    tablePrivileges: (await tx.query<{ privilege: string }>(TABLE_PRIVILEGES)).map((p) => p.privilege),
    comments: await tx.query(COMMENTS, [
      schemaOids,
      oids,
      relations.map((r) => r.kind),
      relations.map((r) => r.name),
      functionOids,
      functions.map((f) => f.kind),
      functions.map((f) => f.signature),
    ]),
  }
}
