-- Studio search of one or two characters within 300 ms at a million (issue 44): such a term has no
-- trigram, so a substring search of it was a scan of the whole list (0.7-1.2 s for a rare
-- character). A term that short now matches the start of the address or the start of its domain
-- (server/waitlist/admin/email-search.ts), found through these two btree indexes;
-- text_pattern_ops serves LIKE 'x%' in any collation. Three characters or more still match
-- anywhere, through the trigram index. Plain Postgres: applies unchanged on hosted Supabase.
create index if not exists waitlist_email_prefix on public.waitlist (lower(email::text) text_pattern_ops);
create index if not exists waitlist_domain_prefix
  on public.waitlist (lower(split_part(email::text, '@', 2)) text_pattern_ops);
