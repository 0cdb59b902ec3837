import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const NEWLINE = 0x0a

/**
 * A sorted list of domains held as bytes, one name a line, searched by halves, outside V8's heap:
 * the package's own Set, or even one string, stays in the heap for good and raised the server's
 * peak past the mail's memory bound (bench/results/from-code-comments.md).
 */
export class SortedDomains {
  readonly size: number

  /** `lines`: the names in strictly ascending byte order, one per line, in Latin-1. */
  constructor(private readonly lines: Buffer) {
    let size = lines.length === 0 ? 0 : 1
    for (let i = lines.indexOf(NEWLINE); i >= 0; i = lines.indexOf(NEWLINE, i + 1)) size++
    this.size = size
  }

  static of(domains: Iterable<string>): SortedDomains {
    return new SortedDomains(Buffer.from([...new Set(domains)].sort().join('\n'), 'latin1'))
  }

  /** Each probe reads the line its middle byte falls in. */
  has(domain: string): boolean {
    const { lines } = this
    let low = 0
    let high = lines.length
    while (low < high) {
      const middle = (low + high) >>> 1
      // `low` is always a line's start, so the line found starts within [low, middle]. (A negative
      // offset would count from the end: the first line needs no search.)
      const start = middle === 0 ? 0 : lines.lastIndexOf(NEWLINE, middle - 1) + 1
      const newline = lines.indexOf(NEWLINE, start)
      const end = newline < 0 ? lines.length : newline
      const order = compareLine(lines, start, end, domain)
      if (order === 0) return true
      if (order < 0) low = end + 1
      else high = start
    }
    return false
  }
}

/** lines[start, end) against `text`, in JavaScript's string order (a name is Latin-1: one byte, one unit). */
function compareLine(lines: Buffer, start: number, end: number, text: string): number {
  const length = Math.min(end - start, text.length)
  for (let i = 0; i < length; i++) {
    const diff = (lines[start + i] as number) - text.charCodeAt(i)
    if (diff !== 0) return diff
  }
  return end - start - text.length
}

/** Where the list lies in mailchecker's Node entry: the array of names passed to `new Set(`. */
const OPENING = Buffer.from('new Set(["')
const CLOSING = Buffer.from('"])')
const SEPARATOR = Buffer.from('","')
/** The bytes a name may hold: lower-case letters, digits, dot, hyphen, underscore. */
const NAME_BYTES = new Uint8Array(256)
for (const char of 'abcdefghijklmnopqrstuvwxyz0123456789.-_') NAME_BYTES[char.charCodeAt(0)] = 1

/**
 * mailchecker's list, read from its package's file as bytes and turned into lines in place: no
 * string is made of it, and nothing is left behind in the heap.
 */
export function loadMailcheckerList(
  file: string = createRequire(import.meta.url).resolve('mailchecker'),
): SortedDomains {
  const bytes = readFileSync(file)
  const start = bytes.indexOf(OPENING) + OPENING.length
  const end = bytes.indexOf(CLOSING, start)
  if (start < OPENING.length || end < 0) throw changedShape(file)
  let length = 0
  for (let i = start; i < end; ) {
    if (bytes[i] === SEPARATOR[0] && bytes[i + 1] === SEPARATOR[1] && bytes[i + 2] === SEPARATOR[2]) {
      bytes[length++] = NEWLINE
      i += SEPARATOR.length
    } else if (NAME_BYTES[bytes[i] as number]) bytes[length++] = bytes[i++] as number
    else throw changedShape(file)
  }
  // A copy of the lines alone, so the file's bytes are freed.
  const lines = Buffer.from(bytes.subarray(0, length))
  if (!ascending(lines)) throw changedShape(file)
  return new SortedDomains(lines)
}

const changedShape = (file: string) =>
  new Error(
    `mailchecker's list was not found, plain and sorted, in ${file}: the package changed its file. ` +
      'Update server/waitlist/address-policy/broad-list.ts to read it.',
  )

/** Whether the lines ascend strictly, compared in place. */
function ascending(lines: Buffer): boolean {
  let previous = 0
  for (let start = lines.indexOf(NEWLINE) + 1; start > 0; ) {
    const next = lines.indexOf(NEWLINE, start)
    const end = next < 0 ? lines.length : next
    // The line before against this one: -1 while they ascend.
    if (lines.compare(lines, start, end, previous, start - 1) >= 0) return false
    previous = start
    start = next + 1
  }
  return true
}
