/**
 * How deeply request JSON may nest. A row of this API holds scalars, an MCP message a few levels
 * of objects, a provider's mail event under ten; 64 is far beyond all. `JSON.parse` takes any
 * depth, but the recursive code that walks the value afterwards (`JSON.stringify`, the SDK's schema
 * checks) overflows the stack on a small body of deeply nested arrays, and parsing a megabyte of
 * brackets holds many times its size (bench/results/from-code-comments.md).
 */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d

/**
 * True when the text's arrays and objects nest deeper than `limit`, read without parsing (brackets
 * inside strings do not count). Run before `JSON.parse`: linear in the text, no recursion. Text
 * that is not JSON at all is left for the parser to refuse.
 */
export function nestsTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) inString = true
    else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) depth--
  }
  return false
}
