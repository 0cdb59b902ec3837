import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/**
 * A sorted list of domains held as one string of lines, searched by halves. mailchecker's 56,000
 * throwaway domains take about 1 MiB so. Loading the package itself keeps its own Set alive for
 * good: 11-13 MiB more resident at rest and 33 MiB more at the peak of 10,000 invitations, past the
 * mail's 150 MiB bound (bench, 2026-11-27).
 */
export class SortedDomains {
  readonly size: number

  /** `lines`: the domains in strictly ascending order (JavaScript's string order), one per line. */
  constructor(private readonly lines: string) {
    let size = lines === '' ? 0 : 1
    for (let i = lines.indexOf('\n'); i >= 0; i = lines.indexOf('\n', i + 1)) size++
    this.size = size
  }

  static of(domains: Iterable<string>): SortedDomains {
    return new SortedDomains([...new Set(domains)].sort().join('\n'))
  }

  /** Each probe reads the line the middle character falls in. */
  has(domain: string): boolean {
    const { lines } = this
    let low = 0
    let high = lines.length
    while (low < high) {
      const middle = (low + high) >>> 1
      // `low` is always a line's start, so the line found starts within [low, middle].
      const start = lines.lastIndexOf('\n', middle - 1) + 1
      const newline = lines.indexOf('\n', start)
      const end = newline < 0 ? lines.length : newline
      const line = lines.slice(start, end)
      if (line === domain) return true
      if (line < domain) low = end + 1
      else high = start
    }
    return false
  }
}

/** Where the list lies in mailchecker's Node entry: the array of names passed to `new Set(`. */
const OPENING = Buffer.from('new Set(["')
const CLOSING = Buffer.from('"])')
const SEPARATOR = Buffer.from('","')
const NEWLINE = 0x0a

/**
 * mailchecker's list, read from its package's file as bytes and turned into lines in place, so that
 * loading makes one flat string and no garbage: 56,000 parsed strings, or a rope of replacements,
 * left the heap some 6 MiB bigger for good.
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
    } else bytes[length++] = bytes[i++] as number
  }
  const lines = bytes.toString('latin1', 0, length)
  if (!/^[a-z0-9._\n-]+$/.test(lines) || !ascending(lines)) throw changedShape(file)
  return new SortedDomains(lines)
}

const changedShape = (file: string) =>
  new Error(
    `mailchecker's list was not found, plain and sorted, in ${file}: the package changed its file. ` +
      'Update server/waitlist/address-policy/broad-list.ts to read it.',
  )

/** Whether the lines ascend strictly, compared in place. */
function ascending(lines: string): boolean {
  let previous = 0
  for (let start = lines.indexOf('\n') + 1; start > 0; ) {
    const next = lines.indexOf('\n', start)
    const end = next < 0 ? lines.length : next
    if (compare(lines, previous, start - 1, start, end) >= 0) return false
    previous = start
    start = next + 1
  }
  return true
}

/** Compares lines[a, aEnd) with lines[b, bEnd) as JavaScript compares strings. */
function compare(text: string, a: number, aEnd: number, b: number, bEnd: number): number {
  for (; a < aEnd && b < bEnd; a++, b++) {
    const diff = text.charCodeAt(a) - text.charCodeAt(b)
    if (diff !== 0) return diff
  }
  return aEnd - a - (bEnd - b)
}
