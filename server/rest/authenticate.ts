import { InvalidKeyError, type JwtClaims, verifyKey } from '../keys'
import { invalidJwt, PostgrestError } from './postgrest-error'

/**
 * Supabase's gateway first requires an `apikey` (header or query parameter) it knows; PostgREST
 * then takes the role from the `Authorization: Bearer` token, or from the apikey when there is none.
 */
export async function authenticate(secret: Uint8Array, request: Request): Promise<JwtClaims> {
  const apikey = request.headers.get('apikey') ?? new URL(request.url).searchParams.get('apikey')
  if (!apikey) {
    throw new PostgrestError(401, 'PGRST301', 'No API key found in request', null, 'No `apikey` request header or url param was found.')
  }
  let claims: JwtClaims
  try {
    claims = await verifyKey(secret, apikey)
  } catch (error) {
    if (!(error instanceof InvalidKeyError)) throw error
    throw new PostgrestError(401, 'PGRST301', 'Invalid API key', null, 'Double check your Supabase `anon` or `service_role` API key.')
  }
  const authorization = request.headers.get('authorization')
  if (!authorization) return claims
  const match = /^Bearer\s+(\S+)$/i.exec(authorization)
  if (!match?.[1]) throw invalidJwt('Expected a Bearer token in the Authorization header')
  // supabase-js sends the key itself as the bearer when there is no session; a bearer that is not
  // a JWT at all (an sb_publishable_… key) stands for the apikey's role, as the gateway treats it.
  if (match[1] === apikey || match[1].split('.').length !== 3) return claims
  try {
    return await verifyKey(secret, match[1])
  } catch (error) {
    if (error instanceof InvalidKeyError) throw invalidJwt(error.message)
    throw error
  }
}
