/**
 * Where an agent that lands on '/' finds the rest, by link relation (llms.txt v2, August 2026): the
 * guide that covers the page (`describedby`) and the page itself in Markdown (`alternate`,
 * text/markdown). The page's <head> carries them as <link> tags, the server as `Link` headers, so
 * both name the same paths.
 */
export const LLMS_TXT_PATH = '/llms.txt'
/** The home page as Markdown: llms.txt v2 allows `page.md` beside v1's `page.html.md`. */
export const HOME_MARKDOWN_PATH = '/index.md'
export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json'

/** The two relations, as the head's <link> tags and the `Link` header both give them. */
export const homeLinkRelations = [
  { rel: 'describedby', href: LLMS_TXT_PATH },
  { rel: 'alternate', type: 'text/markdown', href: HOME_MARKDOWN_PATH },
] as const
