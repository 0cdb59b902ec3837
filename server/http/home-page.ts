import type { Context } from 'hono'
import { accepts } from 'hono/accepts'
import { AI_CATALOG_PATH, HOME_MARKDOWN_PATH, homeLinkRelations } from '../../contract/agent-links'
import { contentSignal } from '../../contract/content-signal'
import { siteConfig } from '../../contract/site-config'
import type { StaticFile } from './static-file'
import { type StaticSite, serveFile } from './static-site'

/** One entry of a parsed Accept header, as hono/accepts hands it to a match function. */
type Accept = { type: string; q: number }

const HTML = 'text/html'
const MARKDOWN = 'text/markdown'

/**
 * What '/' links to, as one `Link` header (RFC 8288): the head's two llms.txt v2 relations and the
 * agent catalog. Fixed, so it is built once.
 */
const HOME_LINK_HEADER = [
  ...homeLinkRelations.map(({ href, ...params }) =>
    [`<${href}>`, ...Object.entries(params).map(([name, value]) => `${name}="${value}"`)].join('; '),
  ),
  `<${AI_CATALOG_PATH}>; rel="ai-catalog"`,
].join(', ')

/** The lab's AI-use policy, on the Markdown as in robots.txt. */
const CONTENT_SIGNAL = contentSignal(siteConfig)

/** The weight the client gives a type: that of the most specific range naming it (RFC 9110 12.5.1). */
function weightOf(accepted: Accept[], type: string): number {
  const [main] = type.split('/')
  for (const range of [type, `${main}/*`, '*/*']) {
    const match = accepted.find((entry) => entry.type.toLowerCase() === range)
    if (match) return match.q
  }
  return 0
}

/**
 * Markdown only for a client that names text/markdown itself and weighs text/html no higher: a
 * browser's Accept never names it, and a wildcard alone (curl's) means HTML (ADR 051).
 */
function markdownUnlessHtmlPreferred(accepted: Accept[]): string {
  const named = accepted.find((entry) => entry.type.toLowerCase() === MARKDOWN)
  if (!named || named.q <= 0) return HTML
  return named.q >= weightOf(accepted, HTML) ? MARKDOWN : HTML
}

function wantsMarkdown(c: Context): boolean {
  const chosen = accepts(c, {
    header: 'Accept',
    supports: [HTML, MARKDOWN],
    default: HTML,
    match: markdownUnlessHtmlPreferred,
  })
  return chosen === MARKDOWN
}

/**
 * '/': the prerendered HTML, or the same page in Markdown (dist/index.md) for an agent that asks for
 * it. Both say that they depend on Accept, so a shared cache keeps them apart; each has its own
 * ETag (a hash of its own bytes), so a validator of one never revalidates the other.
 * `originTrialToken` (WEBMCP_ORIGIN_TRIAL_TOKEN) turns WebMCP on for visitors' Chrome (ADR 052).
 * `html` is the page for a browser: the home page, or a no-script answer page (ADR 053).
 */
export function serveHome(
  c: Context,
  site: StaticSite,
  originTrialToken?: string,
  html: StaticFile = site.home,
): Response {
  const markdown = site.files.get(HOME_MARKDOWN_PATH)
  const file = markdown && wantsMarkdown(c) ? markdown : html
  // In the Response as it is made, not set on it after: @hono/node-server writes such a Response
  // as it is, where headers touched later cost a copy of each and a read of the body as a stream.
  return serveFile(c.req.raw, file, 200, homeHeaders(site, file === markdown, originTrialToken))
}

/** What '/' adds to its file's own headers, in either form. */
function homeHeaders(site: StaticSite, markdown: boolean, originTrialToken: string | undefined) {
  // Both are '/': revalidated at each use, as the page is, so a new build reaches agents too.
  const headers: Record<string, string> = {
    'Cache-Control': site.home.cacheControl,
    Vary: 'Accept, Accept-Encoding',
    Link: HOME_LINK_HEADER,
  }
  if (markdown) headers['Content-Signal'] = CONTENT_SIGNAL
  else if (originTrialToken) headers['Origin-Trial'] = originTrialToken
  return headers
}
