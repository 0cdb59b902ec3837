/**
 * The site's public address is known only when the server starts (SITE_URL, or the address it
 * listens on), but the HTML and the agent files are written at build time. They carry this
 * placeholder, which the server replaces as it loads dist (server/http/site-url.ts), the same
 * way it fills in the anon key.
 */
export const SITE_URL_PLACEHOLDER = '__SITE_URL__'

/** An absolute URL on this site, for canonical links, the sitemap, previews and catalogs. */
export function absoluteUrl(path: `/${string}`): string {
  return `${SITE_URL_PLACEHOLDER}${path}`
}

/**
 * In index.html's `waitlist-confirm` meta tag until the server writes `on` or `off` there, as it
 * starts (CONFIRM_SIGNUPS with a way to send): the toast after a signup then says to check the inbox.
 */
export const CONFIRM_SIGNUPS_PLACEHOLDER = '__CONFIRM_SIGNUPS__'

/** In index.html's meta tag until the server (or a static host's build) writes the anon key there. */
export const ANON_KEY_PLACEHOLDER = '__SUPABASE_ANON_KEY__'
