import type { Database, Queryable } from '../db/database'
import { isoUtc } from '../db/iso-utc'
import { checkInviteCode, type LinkKeys } from '../mail/messages/link-seals'
import { changeStatus } from './entry-status'

/** What redeeming a code told the beta product: whose invitation it was, and whether this was its first redeem. */
export interface Redeemed {
  email: string
  /** When the entry was invited (the invitation's own queueing for an entry invited before the dates were kept). */
  invited_at: string
  /** When the entry first redeemed a code: it joined then. */
  joined_at: string
  /** This redeem made the entry `joined`: the beta product's first sight of this person. */
  first: boolean
}

/** Why a code was refused, in words the beta product can log. */
export type RedeemRefusal = 'invalid' | 'test' | 'unknown' | 'replaced'

export const REDEEM_REFUSALS: Record<RedeemRefusal, string> = {
  invalid: 'This is not an invite code of this waitlist: it was changed, cut short, or made with another key',
  test: 'This invite code came from a test send (invite --test): it invites nobody',
  unknown: 'No invitation has this code: its entry may have been removed from the waitlist',
  replaced: 'This invite code was replaced by a later invitation: only the newest one admits the person',
}

interface Invitation {
  messageId: string
  waitlistId: string
  email: string
  /** A later invitation to the same entry was queued and not cancelled: this code is withdrawn. */
  replaced: boolean
}

/**
 * The invitation a code names, locked with its entry: only an invitation's code redeems (never a
 * test's), and two redeems of one person's codes, even of two different codes, take turns. (No key
 * update: the entry's rows that reference it, its history and its mail, are written meanwhile.)
 */
async function lockInvitation(tx: Queryable, invitationId: string): Promise<Invitation | undefined> {
  const [row] = await tx.query<Invitation>(
    `select o.id::text as "messageId", o.waitlist_id::text as "waitlistId", w.email::text as email,
            exists (select 1 from private.mail_outbox later
                     where later.waitlist_id = o.waitlist_id and later.kind = 'invitation'
                       and later.id > o.id and later.status <> 'cancelled') as replaced
       from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
      where o.uuid = $1::uuid and o.kind = 'invitation'
      for no key update of o, w`,
    [invitationId],
  )
  return row
}

/**
 * Whether the beta product has seen this person before: the entry joined already (by any of its
 * codes, or as an import restored it), or one of its codes was redeemed while it stayed
 * unsubscribed or complained. Read after the lock, so a redeem that just committed counts.
 */
async function seenBefore(tx: Queryable, waitlistId: string): Promise<boolean> {
  const [row] = await tx.query<{ seen: boolean }>(
    `select coalesce((select status = 'joined' from private.entry_status where waitlist_id = $1::bigint), false)
         or exists (select 1 from private.mail_outbox
                     where waitlist_id = $1::bigint and kind = 'invitation' and redeemed_at is not null) as seen`,
    [waitlistId],
  )
  return row?.seen ?? false
}

/**
 * `redeem_invite(code)`: the beta product tells the waitlist who came. The code is checked as the
 * documented offline check does (messages/link-seals.ts). Only the entry's newest invitation
 * redeems: `--resend` mails a new code and withdraws the earlier ones, so a forwarded or leaked
 * mail admits nobody once the owner resends (a resend still pending counts; one cancelled before
 * it left does not). The entry's first redeem makes it `joined` (entry-status.ts: `entry.joined`,
 * from `invited`, or `bounced` when the person came anyway) and answers `first: true`; redeeming
 * the same code again answers `first: false` and the same dates, and changes nothing. An entry
 * that unsubscribed or complained keeps its status (it is never mailed again) while its code is
 * still stamped.
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
    if (invitation.replaced) return { refused: 'replaced' as const }
    const first = !(await seenBefore(tx, invitation.waitlistId))
    await tx.run(
      'update private.mail_outbox set redeemed_at = now() where id = $1::bigint and redeemed_at is null',
      [invitation.messageId],
    )
    if (first) await changeStatus(tx, 'join', [invitation.waitlistId], { detail: 'redeemed the invite code' })
    const [dates] = await tx.query<{ invitedAt: string; joinedAt: string }>(
      `select coalesce(${isoUtc('s.invited_at')}, ${isoUtc('o.queued_at')}) as "invitedAt",
              coalesce(${isoUtc('s.joined_at')}, ${isoUtc('r.first_redeem')}) as "joinedAt"
         from private.mail_outbox o
         left join private.entry_status s on s.waitlist_id = o.waitlist_id
         cross join lateral (select min(redeemed_at) as first_redeem from private.mail_outbox
                              where waitlist_id = o.waitlist_id and kind = 'invitation') r
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
