import type { ServerEnv } from '../../boot/env'
import type { Logger } from '../../boot/log'
import type { Database } from '../../db/database'
import { retryPolicy } from '../../outbox/backoff'
import { type Deliverer, startDeliverer } from './deliverer'
import { setNotificationsEnabled } from './outbox-sql'

/**
 * Switches the outbox on and starts the deliverer when SIGNUP_WEBHOOK_URL is set; switches it off
 * otherwise, so signups made while no deliverer runs queue nothing. The switch is per database:
 * servers sharing one Postgres should be configured alike (the last to start decides).
 */
export async function startNotifications(
  env: ServerEnv,
  db: Database,
  log: Logger,
): Promise<Deliverer | undefined> {
  await setNotificationsEnabled(db, env.SIGNUP_WEBHOOK_URL !== undefined)
  if (!env.SIGNUP_WEBHOOK_URL) return undefined
  const deliverer = await startDeliverer({
    db,
    log,
    url: env.SIGNUP_WEBHOOK_URL,
    secret: env.SIGNUP_WEBHOOK_SECRET,
    timeoutMs: env.SIGNUP_WEBHOOK_TIMEOUT_MS,
    retry: retryPolicy(env.SIGNUP_WEBHOOK_RETRY_BASE_MS, env.SIGNUP_WEBHOOK_RETRY_FOR_MS),
  })
  // The origin only: a Slack or Discord webhook's path is its secret.
  log.info(
    `Signup notifications go to ${new URL(env.SIGNUP_WEBHOOK_URL).origin}` +
      (env.SIGNUP_WEBHOOK_SECRET ? ' (signed)' : ' (unsigned: set SIGNUP_WEBHOOK_SECRET to sign them)'),
  )
  return deliverer
}
