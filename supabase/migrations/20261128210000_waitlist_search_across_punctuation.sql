-- Studio search within 300 ms at a million for any substring of three characters or more
-- (docs/decisions/056-search-trigrams-across-punctuation.md). pg_trgm splits text into words at
-- every character that is not a letter or a digit, so in "e.com", "0.1" or "-12" the parts either
-- side of the dot, hyphen or @ give trigrams common to most addresses ("com"), or none ("e", "0"),
-- and the index handed back most of the list to recheck (600,000 rows for "e.com", 900 ms).
-- Indexed instead: the lower-cased address with . @ - _ mapped to rarely used letters (q z x j), so
-- a trigram spans them ("e.com" → "eqcom": "eqc", "qco", "com"). The mapping is the same on both
-- sides of LIKE, so an address containing the search always matches; one that only collides (a
-- real "q" for a ".") is dropped by the exact `ilike` the query keeps beside it. replace() rather
-- than translate(): a third of the cost per row where a dense search reads the table.
-- It replaces the index on email::text, so an insert still updates one trigram index.
do $$
declare
  trgm_schema name;
begin
  select n.nspname into trgm_schema
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
   where e.extname = 'pg_trgm';
  execute format(
    $sql$create index if not exists waitlist_email_search_trgm on public.waitlist
           using gin ((replace(replace(replace(replace(lower(email::text),
             '.', 'q'), '@', 'z'), '-', 'x'), '_', 'j')) %I.gin_trgm_ops)$sql$,
    trgm_schema
  );
end
$$;

drop index if exists public.waitlist_email_trgm;
