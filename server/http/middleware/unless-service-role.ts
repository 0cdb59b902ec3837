import type { MiddlewareHandler } from 'hono'
import type { ApiKeys } from '../../auth/api-keys'
import { cachedVerifier } from '../../auth/key-cache'
import { authenticate } from '../rest/rest-app'

/**
 * Runs `guard` (the per-address rate limit) except for requests whose key verifies as service_role:
 * the owner's key may insert in bulk (ADR 017), and whoever holds it can read every row anyway. A
 * forged or broken key is not exempt: it meets the guard, then the REST app's 401.
 */
export function unlessServiceRole(keys: ApiKeys, guard: MiddlewareHandler): MiddlewareHandler {
  const verify = cachedVerifier(keys.secret)
  return async (c, next) => {
    const role = await authenticate(verify, c.req.raw).then(
      (claims) => claims.role,
      () => undefined,
    )
    return role === 'service_role' ? next() : guard(c, next)
  }
}
