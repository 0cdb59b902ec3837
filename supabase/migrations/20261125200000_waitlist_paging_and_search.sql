-- A million signups: the studio pages by keyset and searches substrings through indexes, rather
-- than sorting or scanning the whole table on every request (docs/decisions/033-studio-keyset-trigram-day-counts.md).
-- Applies unchanged on hosted Supabase and with an owner that is not a superuser: pg_trgm is a
-- trusted extension, so CREATE on the database is enough to create it.

create extension if not exists pg_trgm with schema extensions;

-- The order of `list`, `export` and the studio (newest first, read backwards): a page starts where
-- the last one ended, (created_at, id) being unique even when signups share a microsecond.
create index if not exists waitlist_created_at_id on public.waitlist (created_at, id);

-- Substring search (`email::text ilike '%…%'`, any letter case) by trigrams. The operator class is
-- named in whichever schema holds pg_trgm: a project that had installed it elsewhere keeps it there.
do $$
declare
  trgm_schema name;
begin
  select n.nspname into trgm_schema
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
   where e.extname = 'pg_trgm';
  execute format(
    'create index if not exists waitlist_email_trgm on public.waitlist using gin ((email::text) %I.gin_trgm_ops)',
    trgm_schema
  );
end
$$;
