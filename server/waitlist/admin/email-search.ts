/**
 * How a studio search matches an address: a substring in any letter case (`ilike`), `%`, `_` and
 * `\` matching themselves. Where the search has three letters or digits in a row once . @ - _ are
 * mapped as the index maps them, the trigram index on that mapping finds the candidates
 * (20261128210000_waitlist_search_across_punctuation.sql, docs/decisions/056); without them no
 * trigram can be looked up, and the search is one scan of the list (short-search.ts).
 */

/** . @ - _ as letters, so trigrams span them; the index's expression is mapped(`email::text`). */
const mapped = (text: string) =>
  `replace(replace(replace(replace(lower(${text}), '.', 'q'), '@', 'z'), '-', 'x'), '_', 'j')`

/** The index's expression, letter for letter: the planner uses the index only for this same text. */
const INDEXED = mapped('email::text')

export interface EmailSearch {
  /** The LIKE pattern, the search's wildcards escaped. */
  pattern: string
  /** The condition on public.waitlist, with the pattern as parameter $param. */
  condition(param: number): string
  /**
   * What the index answers: every match, and the few addresses that only collide in its mapping.
   * Alone in a query, its row estimate is the index's own, so the planner reads a dense search
   * from the table until it has enough, and a rare one through the index.
   */
  candidates(param: number): string
}

/** `%`, `_` and `\` match themselves in the search, not as LIKE wildcards. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
}

/**
 * Three ASCII letters or digits in a row, as pg_trgm reads the mapped search: in a database whose
 * ctype is C (the embedded one), other letters end a word, as the punctuation does.
 */
const hasTrigram = (search: string) => /[a-z0-9]{3}/i.test(search.replace(/[.@\-_]/g, 'q'))

export function emailSearch(search: string): EmailSearch {
  const pattern = likePattern(search)
  const exact = (param: number) => `email::text ilike $${param}`
  if (!hasTrigram(search)) return { pattern, condition: exact, candidates: exact }
  // lower() is ILIKE's own folding, so no match is missed; the exact ilike drops what only collided
  // in the mapping (a real "q" where the search has a dot).
  const candidates = (param: number) => `${INDEXED} like ${mapped(`$${param}::text`)}`
  return { pattern, condition: (param) => `${candidates(param)} and ${exact(param)}`, candidates }
}
