import { mailWords, siteConfig } from '../../contract/site-config'
import type { HistoryItem } from './admin/entry-history'
import type { ConsentRecord } from './consent/consent-record'

/**
 * An entry's history told to the person it is about (their page and their download): each line in
 * plain words ("Invited", "Added from the lab's earlier list"), never the team's markers ("marked
 * ((import))", "from api"), the lab's file names, or who on the team did it. The team's own view
 * (`show`, the studio) keeps the exact events; this is a translation of them, not a second record.
 */

const words = mailWords.pages.yourData
const events = words.events
const eventWords: Readonly<Record<string, string | undefined>> = events
const lab = (text: string) => text.replaceAll('{lab}', siteConfig.labName)

/** One line of the person's history: when, and what happened, in their words. */
export interface PersonHistoryItem {
  /** UTC, microseconds. */
  at: string
  what: string
}

/** A mark's detail is the tag and the door it came through (`shortlist (studio)`): the tag alone. */
const tagOf = (detail: string | undefined) => (detail ?? '').replace(/\s*\([^)]*\)\s*$/, '').trim()

/** A message's outcome, and when it left where that is known (never a server's error text). */
function messageLine(item: HistoryItem): string {
  const left = /^left at (\S+)/.exec(item.detail ?? '')?.[1]
  const outcome = `${item.outcome ?? ''}${left ? ` (left at ${left.slice(0, 16).replace('T', ' ')} UTC)` : ''}`
  return events.message.replace('{kind}', item.kind ?? '').replace('{outcome}', outcome)
}

function lineOf(item: HistoryItem, imported: boolean): string {
  if (item.event === 'message') return messageLine(item)
  if (item.event === 'signed up' && imported) return events.added
  if (item.event === 'tagged' || item.event === 'untagged')
    return events[item.event].replace('{tag}', tagOf(item.detail))
  const said = eventWords[item.event]
  if (said === undefined) return lab(events.other)
  return item.detail === 'date only' ? `${said} (${events.dateOnly})` : said
}

/** The history, oldest first, as the person reads it. */
export function personHistory(
  history: readonly HistoryItem[],
  consent: ConsentRecord | null,
): PersonHistoryItem[] {
  const imported = consent?.door === 'import'
  return history.map((item) => ({ at: item.at, what: lineOf(item, imported) }))
}

/**
 * The consent record as the person reads it: an import's words name the lab's own file, so they
 * say in plain words where the entry came from; every other door's words are what was shown.
 */
export function personConsent(consent: ConsentRecord | null): ConsentRecord | null {
  if (consent?.door !== 'import' || !consent.words) return consent
  return { ...consent, words: { ...consent.words, text: lab(words.importWords) } }
}

const sourceWords: Readonly<Record<string, string | undefined>> = words.sources

/** Where the signup came from, as the person reads it: the counters' markers (`(api)`) in words. */
export const personSource = (source: string | null): string | null =>
  source === null ? null : (sourceWords[source] ?? source)
