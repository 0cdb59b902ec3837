import { createHash } from 'node:crypto'
import {
  NO_SCRIPT_ANSWER_ID,
  TOAST_CLOSE_CLASS,
  TOAST_VARIANT_CLASS,
  TOAST_VIEWPORT_CLASS,
} from '../../contract/toast-look'
import { type OutcomeMessage, outcomeMessageFor } from '../../contract/waitlist-outcome'
import type { NativeFormResult } from './native-form'
import { compressed, type StaticFile } from './static-file'

export type AnswerPages = Readonly<Record<NativeFormResult, StaticFile>>

const RESULTS: readonly NativeFormResult[] = ['submitted', 'already_registered', 'error']

/**
 * The words each answer shows: the specification's, from the one table the page's toasts use too
 * (with confirmation on, the success asks the visitor to check the inbox, as the toast does).
 */
const wordsOf = (result: NativeFormResult, confirmSignups: boolean): OutcomeMessage =>
  outcomeMessageFor(result, confirmSignups)

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)

/**
 * The toast a hydrated submit would show, as static HTML in the toast's place and look. Its Close is
 * a link to the plain page: it works with scripts off. The errors are alerts, as the toasts' are.
 */
export function answerRegion({ title, description, variant }: OutcomeMessage): string {
  const role = variant === 'destructive' ? 'alert' : 'status'
  return (
    `<section id="${NO_SCRIPT_ANSWER_ID}" aria-label="Notifications" class="${TOAST_VIEWPORT_CLASS}">` +
    `<div role="${role}" class="relative rounded-md border p-4 pr-8 shadow-lg ${TOAST_VARIANT_CLASS[variant]}">` +
    `<p class="text-sm font-semibold">${escapeHtml(title)}</p>` +
    `<p class="text-sm opacity-90">${escapeHtml(description)}</p>` +
    `<a href="/" aria-label="Close" class="${TOAST_CLOSE_CLASS}"><span aria-hidden="true">×</span></a>` +
    '</div></section>'
  )
}

function answerPage(home: StaticFile, region: string): StaticFile {
  // First in the body: a screen reader meets the answer before the page it answers on.
  const html = home.body.toString('utf8').replace(/<body([^>]*)>/, (tag) => `${tag}${region}`)
  const body = Buffer.from(html)
  return {
    ...home,
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    brotli: undefined,
    gzip: undefined,
    // Compressed when the home page is, that is once its address is filled in (static-site.ts).
    // Seldom asked for, so compressed for speed (about 5 ms, 10% larger than quality 11).
    ...(home.brotli && compressed(body, 5)),
  }
}

/**
 * The page a no-script submit lands on (`/?waitlist=<result>`, ADR 006): the home page with the
 * outcome's words in it. Made once from the home page, when it is loaded or its address filled in,
 * never per request (ADR 053).
 */
export function answerPages(home: StaticFile, confirmSignups = false): AnswerPages {
  const pages = Object.fromEntries(
    RESULTS.map((result) => [result, answerPage(home, answerRegion(wordsOf(result, confirmSignups)))]),
  )
  return pages as Record<NativeFormResult, StaticFile>
}

/** The answer page a request for `/` asks for with `?waitlist=`, if any. */
export function answerPageFor(pages: AnswerPages, query: string | undefined): StaticFile | undefined {
  return query !== undefined && Object.hasOwn(pages, query) ? pages[query as NativeFormResult] : undefined
}
