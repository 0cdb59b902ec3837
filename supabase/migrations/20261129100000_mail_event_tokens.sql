-- Provider events that cannot be replayed (issue 40): Mailgun signs only a timestamp and a token,
-- not the event beside them, so a signature seen once could carry any event for as long as its
-- timestamp is fresh. Each token is kept here until its timestamp leaves the accepted window, so a
-- second POST with it is refused, on every server of this database. Plain Postgres in `private`,
-- owner-only: applies unchanged on hosted Supabase and with an owner that is not a superuser.

-- The token is stored hashed (sha256, hex): a fixed size whatever the provider sends. Rows past
-- `expires_at` are deleted as new tokens arrive, so the table holds at most a few minutes of posts.
create table if not exists private.mail_event_tokens (
  provider text not null,
  token_hash text not null check (length(token_hash) = 64),
  expires_at timestamptz not null,
  primary key (provider, token_hash)
);
create index if not exists mail_event_tokens_expiry on private.mail_event_tokens (expires_at);

alter table private.mail_event_tokens enable row level security;
revoke all on table private.mail_event_tokens from public, anon, authenticated;
