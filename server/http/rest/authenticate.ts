import { InvalidKeyError } from '../../auth/verify-key'
import type { JwtClaims } from '../../db/api-roles'
import { invalidApiKey, invalidJwt, jwtRefusal, missingApiKey } from './postgrest-error'
import { searchParamsOf } from './query-params'

/** Checks a token and returns its claims (server/auth/verify-key.ts, possibly cached). */
export type Verifier = (token: string) => Promise<JwtClaims>

/** The token's claims, or the refusal PostgREST (or the gateway) words for its fault. */
async function claimsOf(verify: Verifier, token: string, refuse: (error: InvalidKeyError) => Error) {
  try {
    return await verify(token)
  } catch (error) {
    throw error instanceof InvalidKeyError ? refuse(error) : error
  }
}

/**
 * Supabase's gateway first requires an `apikey` (header or query parameter); PostgREST then takes
 * the role from the Bearer token, or from the apikey without one. Where hosted Kong knows the
 * project's two keys, any key our secret signed passes: a hosted project's secret works unchanged.
 */
export async function authenticate(verify: Verifier, request: Request): Promise<JwtClaims> {
  const apikey = request.headers.get('apikey') ?? searchParamsOf(request.url).get('apikey')
  if (!apikey) throw missingApiKey()
  const claims = await claimsOf(verify, apikey, invalidApiKey)
  const authorization = request.headers.get('authorization')
  if (authorization === null) return claims
  // PostgREST reads only "Bearer <token>"; any other scheme leaves an empty token, which it refuses.
  const [scheme = '', token = ''] = authorization.trim().split(/\s+/)
  if (!/^bearer$/i.test(scheme) || token === '')
    throw invalidJwt('PGRST301', 'Empty JWT is sent in Authorization header')
  // supabase-js sends the key itself as the bearer when there is no session.
  if (token === apikey) return claims
  return claimsOf(verify, token, (error) => jwtRefusal(error, token))
}
