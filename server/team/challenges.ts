import type { Queryable } from '../db/database'

/** How long a challenge may be answered: a passkey prompt, with time to read it. */
export const CHALLENGE_SECONDS = 300

export type ChallengePurpose = 'register' | 'sign-in'

/**
 * Keeps a challenge the library made for a ceremony (base64url, as it and the browser carry it),
 * until it is answered once or expires. Expired ones are swept as new ones are kept: every request
 * that makes one has passed the site's rate limit, so the table stays small.
 */
export async function keepChallenge(
  db: Queryable,
  challenge: string,
  purpose: ChallengePurpose,
  memberId?: string,
): Promise<void> {
  await db.query(
    `with swept as (delete from private.team_challenges where expires_at < now())
     insert into private.team_challenges (challenge, purpose, member_id, expires_at)
     values ($1, $2, $3::bigint, now() + make_interval(secs => $4))`,
    [challenge, purpose, memberId ?? null, CHALLENGE_SECONDS],
  )
}

/**
 * Takes the challenge, once: true when it was handed out for this purpose (and member), and has
 * not expired or been answered before. A replayed answer finds it gone.
 */
export async function takeChallenge(
  db: Queryable,
  challenge: string,
  purpose: ChallengePurpose,
  memberId?: string,
): Promise<boolean> {
  if (challenge.length < 16 || challenge.length > 128) return false
  const { affected } = await db.run(
    `delete from private.team_challenges
      where challenge = $1 and purpose = $2 and member_id is not distinct from $3::bigint
        and expires_at >= now()`,
    [challenge, purpose, memberId ?? null],
  )
  return affected === 1
}
