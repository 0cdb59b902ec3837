import { jwtVerify } from 'jose'
import { API_ROLES, type ApiRole, type JwtClaims } from '../db/jwt-claims'

/**
 * Why a key was refused, in this room's terms; the REST room words each as PostgREST does
 * (jwtRefusal in server/http/rest/postgrest-error.ts).
 */
export type KeyFault = 'parts' | 'expired' | 'early' | 'claims' | 'algorithm' | 'signature' | 'role'

export class InvalidKeyError extends Error {
  override name = 'InvalidKeyError'
  constructor(readonly fault: KeyFault) {
    super(`The key was refused (${fault})`)
  }
}

function faultOf(error: unknown, token: string): KeyFault {
  const { code, claim } = error as { code?: string; claim?: string }
  if (token.split('.').length !== 3) return 'parts'
  if (code === 'ERR_JWT_EXPIRED') return 'expired'
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return claim === 'nbf' ? 'early' : 'claims'
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED') return 'algorithm'
  return 'signature'
}

/**
 * Verifies an HS256 key (30 s clock skew, as PostgREST) and returns its claims; throws
 * InvalidKeyError. A token without a role claim is anon, PostgREST's db-anon-role. A role other
 * than the three Supabase roles is refused: PostgREST would switch to any existing database role
 * named there, which a leaked secret should not reach.
 */
export async function verifyKey(secret: Uint8Array, token: string): Promise<JwtClaims> {
  let payload: Record<string, unknown>
  try {
    ;({ payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], clockTolerance: 30 }))
  } catch (error) {
    throw new InvalidKeyError(faultOf(error, token))
  }
  const role = payload.role ?? 'anon'
  if (typeof role !== 'string' || !API_ROLES.includes(role as ApiRole)) throw new InvalidKeyError('role')
  return { ...payload, role: role as ApiRole }
}
