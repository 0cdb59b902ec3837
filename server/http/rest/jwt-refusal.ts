import type { InvalidKeyError } from '../../auth/verify-key'
import { invalidJwt, type PostgrestError } from './postgrest-error'

/** PostgREST 13's wording for each way a token can fail (src/PostgREST/Auth/Jwt.hs). */
export function jwtRefusal(error: InvalidKeyError, token: string): PostgrestError {
  switch (error.fault) {
    case 'parts':
      return invalidJwt('PGRST301', `Expected 3 parts in JWT; got ${token.split('.').length}`)
    case 'expired':
      return invalidJwt('PGRST303', 'JWT expired')
    case 'early':
      return invalidJwt('PGRST303', 'JWT not yet valid')
    case 'claims':
      return invalidJwt('PGRST303', 'Parsing claims failed')
    case 'algorithm':
      return invalidJwt('PGRST301', 'Wrong or unsupported encoding algorithm', 'Only HS256 is accepted')
    case 'role':
      return invalidJwt(
        'PGRST303',
        'JWT role is not one this API serves',
        'The role claim must be anon, authenticated or service_role',
      )
    default:
      return invalidJwt(
        'PGRST301',
        'No suitable key or wrong key type',
        'None of the keys was able to decode the JWT',
      )
  }
}
