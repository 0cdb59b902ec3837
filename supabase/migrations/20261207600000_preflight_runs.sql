-- The deliverability preflight (issue 66): the owner's tools ask, a running server that sends reads
-- the DNS with its own settings and answers here. A request is a row; the first server to claim it
-- (SKIP LOCKED) checks and writes the lines. `invite` reuses a passing answer for an hour, for the
-- same MAIL_FROM; a failing or unchecked one is asked again.
create table if not exists private.preflight_runs (
  id bigint generated always as identity primary key,
  requested_at timestamptz not null default now(),
  requested_by text not null,
  claimed_at timestamptz,
  checked_at timestamptz,
  -- MAIL_FROM as the server that checked has it: a passing answer holds for that sender only.
  mail_from text,
  passed boolean,
  -- One object per check: {check, status, says, read?, publish?}.
  lines jsonb,
  constraint preflight_runs_checked check ((checked_at is null) = (passed is null))
);
create index if not exists preflight_runs_checked on private.preflight_runs (checked_at desc)
  where checked_at is not null;

alter table private.preflight_runs enable row level security;
-- No policies and no grants: only the owner (the server and the CLI) reads or writes it.
revoke all on table private.preflight_runs from public, anon, authenticated;
