import { createHash } from 'node:crypto'

// Script types a browser runs; anything else (JSON-LD, import maps aside) is a data block.
const EXECUTABLE_TYPES = new Set(['', 'module', 'text/javascript', 'application/javascript'])

/**
 * The Content-Security-Policy sources ('sha256-…') of the inline scripts a page runs, so the
 * policy can allow exactly those (the after-paint loader) and still refuse any other inline script.
 * Data blocks such as JSON-LD are never executed and need no allowance.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>()
  for (const [, attributes = '', body = ''] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/i.test(attributes)) continue
    const type = /\btype\s*=\s*"([^"]*)"/i.exec(attributes)?.[1]?.trim().toLowerCase() ?? ''
    if (!EXECUTABLE_TYPES.has(type)) continue
    hashes.add(`'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`)
  }
  return [...hashes]
}
