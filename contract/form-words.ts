import { requestAccessWords } from './request-access-words.ts'

/**
 * What the access-request form shows a person before they press its button, in the specification's
 * words: the page's form and the no-script form read it, and the consent record keeps it as the
 * words that door showed (server/waitlist/consent/door-words.ts).
 */
export const formWords = {
  /** The field's label (read by screen readers; the field shows the placeholder). */
  label: requestAccessWords.emailTitle,
  placeholder: 'Enter your email',
  button: 'Request Access',
  submitting: 'Submitting...',
} as const
