-- The Standard Webhooks `webhook-id` of each signup delivery: a random UUID stored with the
-- delivery, so it stays the same on every retry of one signup (a receiver drops the duplicates
-- that at-least-once delivery allows) and is unique across databases. It replaces msg_<waitlist id>,
-- which a second installation, or the same list imported into a new database, sent again for other
-- signups, so a receiver dropping duplicates dropped real ones. gen_random_uuid() is core
-- PostgreSQL (13 and later), so this applies unchanged on hosted Supabase and as a plain owner.
alter table private.signup_deliveries
  add column if not exists webhook_id uuid not null default gen_random_uuid();
