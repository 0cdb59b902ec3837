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

// Control characters (NUL above all, which PostgreSQL's text refuses) never reach the table.
const CONTROL = /\p{Cc}/gu

/** A tag as stored: no control characters, no surrounding spaces, at most MAX_TAG_LENGTH characters. */
export function cleanTag(value: string | null | undefined): string {
  if (!value) return ''
  // A cut between the two halves of a surrogate pair would leave half a character: it goes too.
  return value
    .replace(CONTROL, '')
    .trim()
    .slice(0, MAX_TAG_LENGTH)
    .replace(/[\uD800-\uDBFF]$/, '')
    .trim()
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

function tagged(query: URLSearchParams | undefined): SourceKey | undefined {
  const source = cleanTag(query?.get('utm_source')).toLowerCase()
  if (!source) return undefined
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
  if (host && !isOwnHost(host)) return { source: cleanTag(host), medium: '', campaign: '' }
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
  if (!isOwnHost(host)) return { source: cleanTag(host), medium: '', campaign: '' }
  return tagged(queryOf(referer)) ?? DIRECT
}
