import type { OutcomeMessage } from './waitlist-outcome'

/*
 * The toasts' place and look, in one place for the toaster, its fallback and the server's no-script
 * answer page (server/http/answer-pages.ts). Written out in full so Tailwind, which scans contract/,
 * emits every class into the page's stylesheet.
 */

/**
 * Where toasts appear: at the top on a phone (as shadcn's default viewport), where the reader who has
 * just sent the form has the header and headline, not the form or the "Join us" heading below it;
 * at the bottom right from 640 px on.
 */
export const TOAST_VIEWPORT_CLASS =
  'fixed top-0 right-0 z-50 sm:top-auto sm:bottom-0 flex w-full max-w-sm flex-col gap-2 p-4'

export const TOAST_VARIANT_CLASS: Record<OutcomeMessage['variant'], string> = {
  default: 'border-line bg-panel text-ink',
  destructive: 'destructive border-red-700 bg-red-700 text-white',
}

export const TOAST_CLOSE_CLASS = 'absolute right-2 top-2 rounded-md p-1 opacity-70 hover:opacity-100'

/** The element holding the server's answer to a no-script submit; the page's script swaps it for a toast. */
export const NO_SCRIPT_ANSWER_ID = 'waitlist-answer'
