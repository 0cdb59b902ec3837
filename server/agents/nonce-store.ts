import { createHash } from 'node:crypto'
import type { Queryable } from '../db/database'

/**
 * A signature's nonce is accepted once within its window, by every server sharing the database
 * (private.agent_nonces, migration 20261207610000). Without it, one signed request seen on the way
 * would let anyone mark signups as that agent's until the signature expires: Web Bot Auth signs
 * the authority and the agent, not the body. Only a signature that held is claimed (a forged one
 * cannot use up an agent's nonce), in one statement that also sweeps a few expired rows, so the
 * table keeps about one window's worth without a timer. A cost on signed requests only.
 */
const CLAIM_SQL = `with swept as (
    delete from private.agent_nonces where hash in (
      select hash from private.agent_nonces
       where expires_at < now() and hash <> $1::bytea
       limit 8 for update skip locked))
  insert into private.agent_nonces (hash, expires_at) values ($1::bytea, to_timestamp($2::double precision))
  on conflict (hash) do update set expires_at = excluded.expires_at
   where private.agent_nonces.expires_at < now()
  returning true as fresh`

/** Claims the nonce until `untilSeconds` (epoch seconds); false when a server already accepted it in its window. */
export async function claimNonce(db: Queryable, nonce: string, untilSeconds: number): Promise<boolean> {
  const hash = createHash('sha256').update(nonce).digest()
  const rows = await db.query<{ fresh: boolean }>(CLAIM_SQL, [hash, untilSeconds])
  return rows.length === 1
}
