/** The roles the keys name; each request runs under one of them (`set local role`). */
export const API_ROLES = ['anon', 'authenticated', 'service_role'] as const
export type ApiRole = (typeof API_ROLES)[number]

/** A verified key's claims: what a request's transaction runs under (database.ts asRole). */
export interface JwtClaims {
  role: ApiRole
  [claim: string]: unknown
}
