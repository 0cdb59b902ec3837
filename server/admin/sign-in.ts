/**
 * How a member signs in to the team studio, and stays signed in (ADR 113): passkeys (registered,
 * listed, renamed, removed, signed in with), sessions and the device each runs on, and what the
 * guard reads of a request (its address and network, the sign-in's rate limit).
 */
export { clientAddress } from '../rate-limit/client-address'
export { networkOf, SHOWN_NETWORK } from '../rate-limit/client-network'
export { type RateLimitStore, rateLimit, retryAfterHeader } from '../rate-limit/rate-limit'
export {
  addPasskey,
  listPasskeys,
  type PasskeyInfo,
  type RelyingParty,
  registrationOptions,
  removePasskey,
  renamePasskey,
  type SignInFrom,
  signIn,
  signInOptions,
} from '../team/passkeys'
export { sessionDevice } from '../team/session-device'
export {
  endOwnSession,
  endSession,
  listSessions,
  MAX_DAYS,
  type SessionInfo,
  type SessionMember,
  sessionMember,
  startSession,
} from '../team/team-sessions'
