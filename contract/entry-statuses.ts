/**
 * An entry's statuses, in the order an entry moves through them: the one list the server, the CLI,
 * the studio and the docs read (the schema's check and docs/invitations.md are tested against it).
 * An import moves a listed entry on to a later status, never back to an earlier one.
 *
 *   unconfirmed  signed up with CONFIRM_SIGNUPS on, link not yet followed: never invited
 *   waiting      on the list, may be invited
 *   invited      an invitation is queued or sent: not invited again without --resend
 *   joined       the beta product redeemed the invite code (redeem_invite): in the beta
 *   bounced      the mail server or the provider refused the address for good (a 5xx, a hard bounce,
 *                three soft bounces in a row): not mailed again without --resend
 *   unsubscribed asked for no more mail: never mailed again, whatever the command
 *   complained   reported the mail as spam: like unsubscribed, never mailed again
 */
export const ENTRY_STATUSES = [
  'unconfirmed',
  'waiting',
  'invited',
  'joined',
  'bounced',
  'unsubscribed',
  'complained',
] as const
export type EntryStatus = (typeof ENTRY_STATUSES)[number]

export const isEntryStatus = (value: string): value is EntryStatus =>
  (ENTRY_STATUSES as readonly string[]).includes(value)
