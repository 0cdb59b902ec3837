import * as z from 'zod'

/**
 * One origin as a browser writes it in `Origin`: scheme, host and port, nothing after. A path, a
 * query, `*` or `null` is a mistake that would otherwise never match and fail silently.
 */
function originProblem(value: string): string | undefined {
  if (!URL.canParse(value)) return `"${value}" is not an address`
  const url = new URL(value)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${value}" is not http:// or https://`
  if (url.username || url.password || url.search || url.hash || !['', '/'].includes(url.pathname)) {
    return `"${value}" is not an origin (scheme://host[:port], no path): ${url.origin}?`
  }
  return undefined
}

/** The CORS variable, merged into the server's env schema (server/boot/env.ts). */
export const corsEnv = {
  /**
   * Further origins whose pages may call the REST API (comma-separated): a page on a CDN calling
   * this server. SITE_URL's origin is always allowed, and the site's own page needs none.
   */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((value, context) => {
      const origins = (value ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
      for (const origin of origins) {
        const problem = originProblem(origin)
        if (problem) context.addIssue({ code: 'custom', message: `${problem}` })
      }
      return [...new Set(origins.map((origin) => (URL.canParse(origin) ? new URL(origin).origin : origin)))]
    }),
}
