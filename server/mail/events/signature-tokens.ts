import { createHash } from 'node:crypto'
import type { Database } from '../../db/database'
import type { SignatureToken } from './mail-event'

/**
 * Records a signature's one-use token, in the database so that every server sharing it knows it,
 * and deletes the tokens whose signatures have expired (the table holds a few minutes of posts).
 * False when the token was recorded before: the same signature again, a replay. The token is
 * hashed, so a row is the same size whatever the provider sent.
 */
export function firstUseOfToken(db: Database, token: SignatureToken): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.run('delete from private.mail_event_tokens where expires_at < now()')
    const { affected } = await tx.run(
      `insert into private.mail_event_tokens (provider, token_hash, expires_at) values ($1, $2, $3)
       on conflict do nothing`,
      [token.provider, createHash('sha256').update(token.token).digest('hex'), token.expiresAt],
    )
    return affected > 0
  })
}
