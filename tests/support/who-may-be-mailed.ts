import type { EntryStatus } from '../../contract/entry-statuses'
import type { MessageKind } from '../../server/mail/messages/compose-message'

/**
 * Who may be mailed, as the docs state it (docs/invitations.md): for each status, and for an
 * address on no entry, the kinds of message that may go to it. The tests hold the one rule,
 * private.may_mail, to this table.
 */
export const MAY_RECEIVE: Readonly<Record<EntryStatus | 'unlisted', readonly MessageKind[]>> = {
  unlisted: ['test'],
  unconfirmed: ['confirmation', 'test'],
  waiting: ['test'],
  invited: ['invitation', 'test'],
  joined: ['test'],
  bounced: [],
  unsubscribed: [],
  complained: [],
}
