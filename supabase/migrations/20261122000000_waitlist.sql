-- The beta waitlist: one row per address, readable only by the lab (service_role).
-- Written to apply unchanged to a hosted Supabase project (`supabase db push`), where the
-- roles and the extensions schema already exist, and to a bare Postgres or PGlite, where they do not.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    -- BYPASSRLS takes a superuser (on PostgreSQL 16 and later, or an owner that has it): a managed
    -- Postgres' owner has neither, and service_role then reads through a policy (20261125100000).
    begin
      create role service_role nologin noinherit bypassrls;
    exception when insufficient_privilege then
      create role service_role nologin noinherit;
    end;
  end if;
end
$$;

-- Supabase keeps extensions out of `public`; do the same so the SQL is identical everywhere.
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;
create extension if not exists citext with schema extensions;

grant usage on schema public to anon, authenticated, service_role;

create table if not exists public.waitlist (
  id bigint generated always as identity primary key,
  -- citext makes the unique constraint case-insensitive: Foo@X.co and foo@x.co are one entry.
  email extensions.citext not null,
  created_at timestamptz not null default now(),
  constraint waitlist_email_key unique (email),
  constraint waitlist_email_trimmed check (email::text = btrim(email::text)),
  constraint waitlist_email_length check (char_length(email::text) <= 254),
  -- The WHATWG "valid e-mail address" grammar, the same check the browser applies to
  -- <input type="email">, so the database accepts what the form lets through and nothing a
  -- hand-made request could slip past it.
  -- https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address
  constraint waitlist_email_format check (
    email::text ~ '^[A-Za-z0-9.!#$%&''*+/=?^_`{|}~-]+@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$'
  )
);

alter table public.waitlist enable row level security;

-- Start from nothing, then give back exactly what each role needs.
revoke all on table public.waitlist from public, anon, authenticated;
grant insert (email) on table public.waitlist to anon, authenticated;
grant all on table public.waitlist to service_role;

drop policy if exists "Anyone can join the waitlist" on public.waitlist;
create policy "Anyone can join the waitlist"
  on public.waitlist
  for insert
  to anon, authenticated
  with check (true);
