import type { Database, Queryable } from '../db/database'
import { isoUtc } from '../db/iso-utc'
import { changeStatus } from '../waitlist/entry-status'
import { checkInviteCode, type LinkKeys } from './messages/link-seals'

/** What redeeming a code told the beta product: whose invitation it was, and whether this was its first redeem. */
export interface Redeemed {
  email: string
  /** When the entry was invited (the invitation's own queueing for an entry invited before the dates were kept). */
  invited_at: string
  /** When the code was first redeemed. */
  joined_at: string
  /** This redeem made the entry `joined`: the beta product's first sight of this person. */
  first: boolean
}

/** Why a code was refused, in words the beta product can log. */
export type RedeemRefusal = 'invalid' | 'test' | 'unknown'

export const REDEEM_REFUSALS: Record<RedeemRefusal, string> = {
  invalid: 'This is not an invite code of this waitlist: it was changed, cut short, or made with another key',
  test: 'This invite code came from a test send (invite --test): it invites nobody',
  unknown: 'No invitation has this code: its entry may have been removed from the waitlist',
}

interface Invitation {
  messageId: string
  waitlistId: string
  email: string
  redeemedAt: string | null
}

/** The invitation a code names, locked: only an invitation's code redeems (never a test's). */
async function lockInvitation(tx: Queryable, invitationId: string): Promise<Invitation | undefined> {
  const [row] = await tx.query<Invitation>(
    `select o.id::text as "messageId", o.waitlist_id::text as "waitlistId", w.email::text as email,
            ${isoUtc('o.redeemed_at')} as "redeemedAt"
       from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
      where o.uuid = $1::uuid and o.kind = 'invitation'
      for update of o`,
    [invitationId],
  )
  return row
}

/**
 * `redeem_invite(code)`: the beta product tells the waitlist who came. The code is checked as the
 * documented offline check does (messages/link-seals.ts); the first redeem of an invitation stamps
 * it and makes its entry `joined` (entry-status.ts: `entry.joined`, from `invited`, or `bounced`
 * when the person came anyway); a later one changes nothing and answers `first: false`. An entry
 * that unsubscribed or complained keeps its status (it is never mailed again) while its code is
 * still stamped as redeemed.
 */
export async function redeemInvite(
  db: Database,
  keys: LinkKeys,
  code: string,
): Promise<Redeemed | { refused: RedeemRefusal }> {
  const checked = checkInviteCode(keys.inviteCode, code)
  if (!checked) return { refused: checkInviteCode(keys.testInviteCode, code) ? 'test' : 'invalid' }
  return db.transaction(async (tx) => {
    const invitation = await lockInvitation(tx, checked.invitationId)
    if (!invitation) return { refused: 'unknown' as const }
    const first = invitation.redeemedAt === null
    if (first) {
      await tx.run('update private.mail_outbox set redeemed_at = now() where id = $1::bigint', [
        invitation.messageId,
      ])
      await changeStatus(tx, 'join', [invitation.waitlistId], { detail: 'redeemed the invite code' })
    }
    const [dates] = await tx.query<{ invitedAt: string; joinedAt: string }>(
      `select coalesce(${isoUtc('s.invited_at')}, ${isoUtc('o.queued_at')}) as "invitedAt",
              coalesce(${isoUtc('s.joined_at')}, ${isoUtc('o.redeemed_at')}) as "joinedAt"
         from private.mail_outbox o left join private.entry_status s on s.waitlist_id = o.waitlist_id
        where o.id = $1::bigint`,
      [invitation.messageId],
    )
    return {
      email: invitation.email,
      invited_at: dates?.invitedAt ?? '',
      joined_at: dates?.joinedAt ?? '',
      first,
    }
  })
}
