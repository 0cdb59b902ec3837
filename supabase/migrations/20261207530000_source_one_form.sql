-- One source, one spelling (issue 64): a signup's source is stored trimmed and in lower case,
-- whichever door it came through, so `count --source`, the studio's filter and the funnel see one
-- "newsletter" where an import had kept "Newsletter" beside the page's "newsletter". The doors
-- write it so (server/analytics/source-of.ts cleanSource: the page, the API, MCP and import); the
-- check holds every other writer to it. A check, not a trigger: the page's insert pays nothing
-- measurable for it. lower() here is the database's (ASCII alone under the embedded C ctype), so
-- the check never refuses what cleanSource wrote, which lowercases more.
update public.waitlist
   set source = nullif(lower(btrim(source)), '')
 where source is distinct from nullif(lower(btrim(source)), '');

alter table public.waitlist drop constraint if exists waitlist_source_one_form;
alter table public.waitlist
  add constraint waitlist_source_one_form check (source = lower(btrim(source)));
