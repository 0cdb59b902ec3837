/** Where the site serves the team studio. */
const STUDIO = '/studio'
/** The studio's front page: where a sign-in goes when it was asked for nothing else. */
const HOME = `${STUDIO}/`
/** An origin no address can have: what a path is read against, so another site's shows as such. */
const HERE = 'https://studio.invalid'
/** The pages a member is never sent back to: signing in again, or a link already used. */
const NOT_BACK = new Set([`${STUDIO}/sign-in`, `${STUDIO}/enrol`])

/**
 * Where the sign-in sends a member once the passkey is checked: the studio address they opened
 * signed out, filters and order with it (`/studio/?status=waiting&sort=answer_organisation`), so a
 * bookmark keeps its view. Only a path under /studio on this site is taken, read as the browser
 * reads it: another site (`https://…`, `//evil.example`, `/\evil.example`), a path that leaves the
 * studio (`/studio/../`, its `%2e%2e` form, `/studiox`) or anything else sends them to the front page.
 * The server checks it before it redirects, the page before it navigates.
 */
export function studioReturn(given: string | null | undefined): string {
  if (!given || given.length > 2000 || !given.startsWith('/')) return HOME
  // A backslash or a control character is read by some browsers as a slash, or dropped.
  if ([...given].some((char) => char === '\\' || char < ' ' || char === '\u007f')) return HOME
  let url: URL
  try {
    url = new URL(given, HERE)
  } catch {
    return HOME
  }
  if (url.origin !== HERE || !(url.pathname === STUDIO || url.pathname.startsWith(HOME))) return HOME
  if (NOT_BACK.has(url.pathname)) return HOME
  return `${url.pathname === STUDIO ? HOME : url.pathname}${url.search}`
}

/** The sign-in page's address for a member who asked for `wanted`: itself alone for the front page. */
export function signInAddress(wanted: string): string {
  const back = studioReturn(wanted)
  return back === HOME ? `${STUDIO}/sign-in` : `${STUDIO}/sign-in?next=${encodeURIComponent(back)}`
}
