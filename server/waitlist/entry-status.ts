/**
 * An entry's status (private.entry_status; no row means `waiting`):
 *   unconfirmed  signed up with CONFIRM_SIGNUPS on, link not yet followed: never invited
 *   waiting      on the list, may be invited
 *   invited      an invitation is queued or sent: not invited again without --resend
 *   unsubscribed asked for no more mail: never mailed again, whatever the command
 *   bounced      the SMTP server or the provider refused the address for good (a 5xx, a hard bounce, three
 *                soft bounces in a row): not mailed again without --resend
 *   complained   reported the mail as spam: like unsubscribed, never mailed again (ADR 043)
 */
export const ENTRY_STATUSES = [
  'unconfirmed',
  'waiting',
  'invited',
  'unsubscribed',
  'bounced',
  'complained',
] as const
export type EntryStatus = (typeof ENTRY_STATUSES)[number]

export const isEntryStatus = (value: string): value is EntryStatus =>
  (ENTRY_STATUSES as readonly string[]).includes(value)

/** The statuses `invite` may move to `invited`: waiting ones, and with --resend those already invited (or bounced, when named). */
export function invitable(resend: boolean, named: boolean): EntryStatus[] {
  if (!resend) return ['waiting']
  return named ? ['waiting', 'invited', 'bounced'] : ['waiting', 'invited']
}

/** Why `invite EMAIL` leaves an entry alone, in the owner's words. */
export function whyNotInvited(status: EntryStatus): string {
  switch (status) {
    case 'unconfirmed':
      return (
        'has not confirmed the address yet (CONFIRM_SIGNUPS): following the link makes it waiting, ' +
        'and invite can pick it then (invite --confirm sends the link again)'
      )
    case 'invited':
      return 'is already invited (--resend sends the invitation again)'
    case 'unsubscribed':
      return 'unsubscribed: no mail ever goes to it again'
    case 'bounced':
      return 'bounced: the mail server refused it for good (--resend tries again)'
    case 'complained':
      return 'reported the mail as spam: no mail ever goes to it again'
    case 'waiting':
      return 'is waiting'
  }
}

/** The status of a waitlist row aliased `w` left-joined to entry_status aliased `s`. */
export const STATUS_SQL = `coalesce(s.status, 'waiting')`
