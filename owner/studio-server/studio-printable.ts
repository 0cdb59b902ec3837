import type { MiddlewareHandler } from 'hono'
import { escapeUnprinted } from '../../contract/clean-text'

// What the answers' rule keeps, which a browser lays out as white space: a text answer keeps its lines.
const laidOut = (char: string) => char === '\n' || char === '\t'

/**
 * Every string in the studio's JSON answers, as the page is to show it: what a stranger stored that
 * is not text (ESC, BEL, U+202E, which would reorder the line around it) comes as its visible escape
 * (`\x1b`, `\u202e`), as `show` prints it (ADR 082). The page renders strings as they come.
 */
export function printableJson(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    if (!c.res.headers.get('content-type')?.startsWith('application/json')) return
    const text = await c.res.clone().text()
    const printable = JSON.stringify(
      JSON.parse(text, (_key, value: unknown) =>
        typeof value === 'string' ? escapeUnprinted(value, laidOut) : value,
      ),
    )
    if (printable === text) return
    const headers = new Headers(c.res.headers)
    headers.delete('content-length')
    c.res = new Response(printable, { status: c.res.status, headers })
  }
}
