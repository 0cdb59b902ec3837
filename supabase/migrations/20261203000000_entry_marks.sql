-- The team's own marks on an entry (issue 50): tags ("shortlist", "ask-again") and a note. They
-- belong to the lab, never to the person: owner-only in `private`, in no mail, webhook or page the
-- person sees, and erased with the entry. Plain Postgres: applies unchanged on hosted Supabase and
-- with an owner that is not a superuser. anon's contract does not change.
--
-- One row per marked entry, none for the rest (most of a list): a signup writes nothing here, so
-- the insert path is unchanged. A tag is a lower-case word of up to 32 characters; the check holds
-- it whichever door writes (server/waitlist/admin/entry-marks.ts says it in the owner's words).
create table if not exists private.entry_marks (
  waitlist_id bigint primary key references public.waitlist (id) on delete cascade,
  tags text[] not null default '{}'
    constraint entry_marks_tags_words check (
      cardinality(tags) <= 50
      and array_position(tags, null) is null
      and array_to_string(tags, ' ') ~ '^([a-z0-9][a-z0-9_-]{0,31}( [a-z0-9][a-z0-9_-]{0,31})*)?$'
    ),
  note text constraint entry_marks_note_length check (char_length(note) between 1 and 1000),
  updated_at timestamptz not null default now()
);
alter table private.entry_marks enable row level security;
revoke all on table private.entry_marks from public, anon, authenticated;

-- `--tag T` (all must match) finds its entries here first, as an answer filter does on the answers'
-- GIN index; `--no-tag` looks each entry up by its key.
create index if not exists entry_marks_tags on private.entry_marks using gin (tags);
