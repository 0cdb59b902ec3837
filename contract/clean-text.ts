/**
 * Text from strangers, one rule: what it may not hold, what is done with it on the way in, and how
 * the owner's tools print what is in the database all the same (ADR 082). Source names
 * (server/analytics/source-of.ts), answers (signup-questions.ts), the log and every printout of the
 * list (the CLI, the studio) use it. Plain code, no library: the page ships it with the answers' check.
 */

// What is not text to show: Unicode's control characters (Cc: NUL, ESC and the other C0 controls,
// DEL, the C1 controls such as CSI), its format characters (Cf: zero-width spaces and joiners, the
// direction controls such as U+202E, which make `moc.rettiwt` print as `twitter.com`, the tag
// characters) and half of a surrogate pair (Cs), which no UTF-8 can carry and PostgreSQL refuses.
export const NOT_TEXT = '\\p{Cc}\\p{Cf}\\p{Cs}'

const CONTROLS_OR_HALVES = /[\p{Cc}\p{Cs}]/gu
const FORMAT = /\p{Cf}/gu
// The controls a person types into a text box: a tab, and a line break (as LF: a browser sends a
// text box's lines with CRLF, and a lone CR would rewrite a terminal's line).
const TYPED = new Set(['\t', '\n'])

/** A code point as Unicode names it: U+001B. */
const codeOf = (char: string) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`

/**
 * A stranger's free text (an answer) as it is stored: line breaks as LF, format characters, which
 * draw as nothing, removed; a control character other than a tab or a line break, or half a
 * character, refused in words the person can act on (a NUL is such a refusal, never a database
 * error).
 */
export function cleanText(label: string, given: string): { text: string } | { problem: string } {
  const value = given.replace(/\r\n?/g, '\n')
  for (const found of value.matchAll(CONTROLS_OR_HALVES)) {
    const [char] = found
    if (TYPED.has(char)) continue
    const what = /\p{Cs}/u.test(char) ? 'half of a character' : 'an invisible control character'
    return {
      problem: `${label} holds ${what} (${codeOf(char)}) that cannot be stored; type it again without it`,
    }
  }
  return { text: value.replace(FORMAT, '') }
}

const NOT_TEXT_ALL = new RegExp(`[${NOT_TEXT}]`, 'gu')

/**
 * A stranger's words kept as one line of text (a relay's SMTP reply, a provider's bounce
 * diagnostic): runs of white space as one space, and what is not text removed, as from a source name.
 */
export function plainLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(NOT_TEXT_ALL, '')
}

/**
 * A stranger's short text as kept (an MCP client's declared name, a Signature-Agent header): what
 * is not text removed, runs of white space as one space, trimmed, cut to `max` characters (never
 * half of one); undefined when nothing is left.
 */
export function keptText(value: string, max: number): string | undefined {
  const text = value
    .replace(NOT_TEXT_ALL, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .replace(/[\uD800-\uDBFF]$/, '')
    .trim()
  return text === '' ? undefined : text
}

// What the owner's screens never print as it is: the above, and the two Unicode line breaks, which
// some terminals and log readers take as the end of a line.
const UNPRINTED_CLASS = `[${NOT_TEXT}\\u2028\\u2029]`
const UNPRINTED = new RegExp(UNPRINTED_CLASS, 'gu')
const HAS_UNPRINTED = new RegExp(UNPRINTED_CLASS, 'u')
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function escapeOne(char: string): string {
  const named = NAMED[char]
  if (named) return named
  const code = char.codePointAt(0) ?? 0
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`
}

/**
 * `text` with every character that is not text written as a visible escape (`\x1b`, `\u202e`,
 * `\n`), so that nothing a stranger stored can drive the terminal or reorder a line. `keep` names
 * the ones a format shows as they are (a text's line breaks and tabs in a CSV).
 */
export function escapeUnprinted(text: string, keep?: (char: string) => boolean): string {
  if (!HAS_UNPRINTED.test(text)) return text
  return text.replace(UNPRINTED, (char) => (keep?.(char) ? char : escapeOne(char)))
}

/**
 * JSON text with every character that is not text written as a JSON escape (`\u202e`): the same
 * data for whoever parses it, nothing a terminal would act on for whoever reads it.
 * JSON.stringify escapes C0 controls and half characters inside strings itself, and writes only
 * line breaks between them (kept); DEL, C1 and format characters it leaves as they are.
 */
export function escapeUnprintedJson(json: string): string {
  if (!HAS_UNPRINTED.test(json)) return json
  return json.replace(UNPRINTED, (char) =>
    char === '\n'
      ? char
      : char
          .split('')
          .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
          .join(''),
  )
}
