import { createHash } from 'node:crypto'

// Script types a browser runs; anything else (JSON-LD, import maps aside) is a data block.
const EXECUTABLE_TYPES = new Set(['', 'module', 'text/javascript', 'application/javascript'])

/** The text of each inline script a page runs; data blocks such as JSON-LD are never executed. */
export function executableInlineScripts(html: string): string[] {
  const scripts: string[] = []
  for (const [, attributes = '', body = ''] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/i.test(attributes)) continue
    const type = /\btype\s*=\s*"([^"]*)"/i.exec(attributes)?.[1]?.trim().toLowerCase() ?? ''
    if (EXECUTABLE_TYPES.has(type)) scripts.push(body)
  }
  return scripts
}

/**
 * The Content-Security-Policy sources ('sha256-…') of the inline scripts a page runs, so the
 * policy can allow exactly those (the after-paint loader) and still refuse any other inline script.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = executableInlineScripts(html).map(
    (body) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`,
  )
  return [...new Set(hashes)]
}
