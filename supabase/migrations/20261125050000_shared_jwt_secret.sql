-- The secret that signs and verifies the API keys, shared by every server on one database
-- (DATABASE_URL without JWT_SECRET): the first server to start stores it here, the others and the
-- owner's CLI read it, so a key from one server works at all of them (ADR 027). With JWT_SECRET set,
-- or with the embedded database (its secret stays in DATA_DIR/jwt-secret), this table stays empty.
-- On hosted Supabase it stays empty too: the project's own JWT secret signs its keys.

create schema if not exists private;
revoke all on schema private from public, anon, authenticated;

create table if not exists private.jwt_secret (
  singleton boolean primary key default true check (singleton),
  secret text not null check (length(secret) >= 32),
  created_at timestamptz not null default now()
);

-- No policies and no grants: only the owner (the role the servers and the CLI connect as) reads it.
alter table private.jwt_secret enable row level security;
revoke all on table private.jwt_secret from public, anon, authenticated, service_role;
