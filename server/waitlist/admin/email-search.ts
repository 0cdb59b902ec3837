/**
 * How a studio search matches an address or a person's name, in any letter case, `%`, `_` and `\`
 * matching themselves. A name (private.entry_names) matches where its lower case holds the search
 * (its start, for one or two characters), read from that table alone, which holds only the named:
 * the address's indexes below stay the plan for the address. For the address:
 * - one or two characters: the start of the address or the start of its domain, through two btree
 *   indexes (20261130200000_short_search_prefix.sql); such a term has no trigram, and as a
 *   substring it was a scan of the list;
 * - more: a substring. Where the search has three letters or digits in a row once . @ - _ are
 *   mapped as the index maps them, the trigram index on that mapping finds the candidates
 *   (20261128210000_waitlist_search_across_punctuation.sql, docs/decisions/056); without them no
 *   trigram can be looked up, and the search is one scan of the list (short-search.ts).
 */

/** . @ - _ as letters, so trigrams span them; the index's expression is mapped(`email::text`). */
const mapped = (text: string) =>
  `replace(replace(replace(replace(lower(${text}), '.', 'q'), '@', 'z'), '-', 'x'), '_', 'j')`

/** The index's expression, letter for letter: the planner uses the index only for this same text. */
const INDEXED = mapped('email::text')

export interface EmailSearch {
  /** The LIKE pattern, the search's wildcards escaped. */
  pattern: string
  /** Whether the search matches starts (one or two characters), not substrings. */
  prefix: boolean
  /** The condition on public.waitlist, with the pattern as parameter $param. */
  condition(param: number): string
  /** The exact test of a candidate, on its `email` column. */
  exact(param: number): string
  /**
   * What the index answers: every match, and the few addresses that only collide in its mapping.
   * Alone in a query, its row estimate is the index's own, so the planner reads a dense search
   * from the table until it has enough, and a rare one through the index.
   */
  candidates(param: number): string
  /** The names the search matches: its LIKE pattern on lower(name), and the condition on public.waitlist. */
  name?: { pattern: string; condition(param: number): string }
}

/** The entries whose name's lower case is like the pattern $param (entry_names_sort holds lower(name)). */
const nameCondition = (param: number) =>
  `waitlist.id in (select n.waitlist_id from private.entry_names n where lower(n.name) like $${param})`

/** `%`, `_` and `\` match themselves in the search, not as LIKE wildcards. */
function likePattern(search: string): string {
  return `%${escapeLike(search)}%`
}

/**
 * Three ASCII letters or digits in a row, as pg_trgm reads the mapped search: in a database whose
 * ctype is C (the embedded one), other letters end a word, as the punctuation does.
 */
const hasTrigram = (search: string) => /[a-z0-9]{3}/i.test(search.replace(/[.@\-_]/g, 'q'))

/** Searches this short match the start of an address or of its domain. */
export const PREFIX_SEARCH_CHARS = 2

const escapeLike = (search: string) => search.replace(/[\\%_]/g, (char) => `\\${char}`)

/**
 * The start of the address, or of its domain, each through its own btree index (the planner ORs
 * the two): the indexes' expressions, letter for letter.
 */
function prefixSearch(search: string): EmailSearch {
  // "@g": the domain's start only.
  const domainOnly = search.startsWith('@') && search.length > 1
  const pattern = `${escapeLike((domainOnly ? search.slice(1) : search).toLowerCase())}%`
  const domain = (param: number) => `lower(split_part(email::text, '@', 2)) like $${param}`
  const starts = (param: number) =>
    domainOnly ? domain(param) : `(lower(email::text) like $${param} or ${domain(param)})`
  const name = domainOnly ? undefined : { pattern, condition: nameCondition }
  return { pattern, prefix: true, condition: starts, candidates: starts, exact: starts, name }
}

export function emailSearch(search: string): EmailSearch {
  if ([...search].length <= PREFIX_SEARCH_CHARS) return prefixSearch(search)
  const pattern = likePattern(search)
  const exact = (param: number) => `email::text ilike $${param}`
  const name = { pattern: likePattern(search.toLowerCase()), condition: nameCondition }
  if (!hasTrigram(search)) return { pattern, prefix: false, condition: exact, candidates: exact, exact, name }
  // lower() is ILIKE's own folding, so no match is missed; the exact ilike drops what only collided
  // in the mapping (a real "q" where the search has a dot).
  const candidates = (param: number) => `${INDEXED} like ${mapped(`$${param}::text`)}`
  return {
    pattern,
    prefix: false,
    condition: (param) => `${candidates(param)} and ${exact(param)}`,
    candidates,
    exact,
    name,
  }
}
