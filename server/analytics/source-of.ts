import { ownCopy } from './own-copy'

/**
 * Where a visit or a signup came from (after Plausible's ingestion/source.ex): the page's
 * `utm_source`, lowercased, else the referring site's host without `www.`, else `direct`.
 * `utm_medium` and `utm_campaign` are kept beside it.
 */
export interface SourceKey {
  source: string
  medium: string
  campaign: string
}

/** The longest source, medium or campaign kept; a longer one is cut (the table's check agrees). */
export const MAX_TAG_LENGTH = 100

export const DIRECT: SourceKey = { source: 'direct', medium: '', campaign: '' }

// What never reaches a name: control characters (NUL above all, which PostgreSQL's text refuses),
// format characters (Cf: zero-width spaces and joiners, the bidi controls such as U+202E, which
// could make `moc.rettiwt` print as `twitter.com`) and whatever else Unicode says to draw as
// nothing (Default_Ignorable_Code_Point: fillers, variation selectors), so that `hn` followed by an
// invisible character is `hn`, not a second row that prints alike.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu

/**
 * A tag as stored: NFKC-normalised (a full-width `ｈｎ` is `hn`), without invisible or
 * direction-control characters, without surrounding spaces, at most MAX_TAG_LENGTH characters.
 */
export function cleanTag(value: string | null | undefined): string {
  if (!value) return ''
  // A cut between the two halves of a surrogate pair would leave half a character: it goes too.
  const tag = value
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .trim()
    .slice(0, MAX_TAG_LENGTH)
    .replace(/[\uD800-\uDBFF]$/, '')
    .trim()
  // Counters and caches keep tags for a day: not the whole address a tag was cut from.
  return tag.length < value.length ? ownCopy(tag) : tag
}

/** The query string of a URL, read without parsing the rest (it runs on every page answer). */
export function queryOf(url: string): URLSearchParams | undefined {
  const start = url.indexOf('?')
  if (start < 0) return undefined
  const end = url.indexOf('#', start)
  return new URLSearchParams(end < 0 ? url.slice(start + 1) : url.slice(start + 1, end))
}

/** The host of an http(s) address, lowercased and without `www.`; undefined for anything else. */
export function siteHost(address: string | null | undefined): string | undefined {
  if (!address || !/^https?:\/\//i.test(address)) return undefined
  let host: string
  try {
    host = new URL(address).hostname
  } catch {
    return undefined
  }
  return host === '' ? undefined : host.replace(/^www\./, '')
}

/**
 * A utm_source as stored: a clean tag, lowercased (`HN` and `hn` are one source). Cleaned again
 * after lowercasing, which can lengthen a name (`İ` is two characters lowercased) and after
 * normalising can still hold a capital (`ℌ` is `H`).
 */
export function cleanSource(value: string | null | undefined): string {
  const once = cleanTag(cleanTag(value).toLowerCase())
  const lower = once.toLowerCase()
  return lower === once ? once : cleanTag(lower)
}

/**
 * The names of the rows the server makes itself: a link's utm_source or a referring host cannot
 * take them, so that no visitor can add page visits to a row that stands for something else
 * (docs/analytics.md): `(other)` the overflow, `(api)` and `mcp` signups with no page visit.
 */
export const RESERVED_SOURCES: ReadonlySet<string> = new Set(['(other)', '(api)', 'mcp'])

/** A referring site as a source, unless its name is one of the server's own rows. */
function hostSource(host: string): SourceKey {
  const source = cleanSource(host)
  return RESERVED_SOURCES.has(source) ? DIRECT : { source, medium: '', campaign: '' }
}

function tagged(query: URLSearchParams | undefined): SourceKey | undefined {
  const source = cleanSource(query?.get('utm_source'))
  if (!source || RESERVED_SOURCES.has(source)) return undefined
  return {
    source,
    medium: cleanTag(query?.get('utm_medium')),
    campaign: cleanTag(query?.get('utm_campaign')),
  }
}

/**
 * A visit's source: its URL's utm_* tags, else the Referer's host when that is another site
 * (`isOwnHost` says which hosts are this site's), else direct.
 */
export function visitSource(
  url: string,
  referer: string | undefined,
  isOwnHost: (host: string) => boolean,
): SourceKey {
  const tags = tagged(queryOf(url))
  if (tags) return tags
  const host = siteHost(referer)
  if (host && !isOwnHost(host)) return hostSource(host)
  return DIRECT
}

/**
 * A signup's source, from the page that sent it: the Referer is that page's address, in full for
 * the site's own pages (its Referrer-Policy, strict-origin-when-cross-origin), so its utm_* tags are
 * the visit's. A page of another site posting here is that site; anything else is direct.
 */
export function signupSource(referer: string | undefined, isOwnHost: (host: string) => boolean): SourceKey {
  const host = siteHost(referer)
  if (!referer || !host) return DIRECT
  if (!isOwnHost(host)) return hostSource(host)
  return tagged(queryOf(referer)) ?? DIRECT
}
