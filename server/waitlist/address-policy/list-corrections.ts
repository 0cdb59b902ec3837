/**
 * Where the packaged disposable lists are wrong for this waitlist, each entry with its reason. The
 * lab's own ALLOWED_DOMAINS and BLOCKED_DOMAINS still decide over both.
 */

/** Throwaway services that no list package names (checked against every one on npm, November 2026). */
export const MORE_DISPOSABLE: readonly string[] = ['tempmail.com']

/**
 * Lasting mailboxes that the second, broader list (mailchecker) names as throwaway, which the first
 * list's maintainers keep off theirs: a university and mail services people have used for decades.
 */
export const KEPT_MAILBOXES: readonly string[] = [
  // The National University of Singapore
  'nus.edu.sg',
  // Hushmail
  'hush.com',
  'hush.ai',
  // Mail services with paid and free mailboxes
  'vfemail.net',
  'safe-mail.net',
  'mail2world.com',
  'xmail.com',
  'sibmail.com',
]
