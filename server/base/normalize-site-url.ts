/**
 * The public address as the built files and the mail's links need it: no trailing slash (paths are
 * appended), and no character that would need escaping in HTML attributes, JSON or XML. Outside
 * server/http, so the owner's tools use the same rule without the HTTP layer.
 */
export function normalizeSiteUrl(raw: string): string {
  const url = new URL(raw)
  const normalized = `${url.origin}${url.pathname.replace(/\/+$/, '')}`
  if (/["'<>&\s]/.test(normalized) || url.search || url.hash) {
    throw new Error(`SITE_URL must be a plain address such as https://lab.example.com, not ${raw}`)
  }
  return normalized
}
