-- service_role is the lab's own key: everything on the waitlist. Hosted Supabase gives the role
-- BYPASSRLS; where the owner is no superuser (RDS, Cloud SQL, Azure, Neon) it cannot be given, and
-- 20261122000000 creates the role without it. The access then comes as any role's does: the grant
-- (there since the first migration) and this policy. Where the role bypasses row-level security
-- anyway, the policy changes nothing.
drop policy if exists "service_role has full access" on public.waitlist;
create policy "service_role has full access"
  on public.waitlist
  for all
  to service_role
  using (true)
  with check (true);
