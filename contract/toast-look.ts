import type { OutcomeMessage } from './waitlist-outcome'

/*
 * The toasts' place and look, in one place for the toaster, its fallback and the server's no-script
 * answer page (server/http/answer-pages.ts). Written out in full so Tailwind, which scans contract/,
 * emits every class into the page's stylesheet.
 */

/** Where toasts appear. */
export const TOAST_VIEWPORT_CLASS = 'fixed bottom-0 right-0 z-50 flex w-full max-w-sm flex-col gap-2 p-4'

export const TOAST_VARIANT_CLASS: Record<OutcomeMessage['variant'], string> = {
  default: 'border-line bg-panel text-ink',
  destructive: 'destructive border-red-700 bg-red-700 text-white',
}

export const TOAST_CLOSE_CLASS = 'absolute right-2 top-2 rounded-md p-1 opacity-70 hover:opacity-100'

/** The element holding the server's answer to a no-script submit; the page's script swaps it for a toast. */
export const NO_SCRIPT_ANSWER_ID = 'waitlist-answer'
