/**
 * The lab's team (ADR 113): its members and their roles, enrolment links on the site's address,
 * passkeys, sessions, and what the team studio's sign-in reads of a request (its address and
 * network, the sign-in's rate limit). The CLI's `team` and the team studio call these.
 */
export { normalizeSiteUrl } from '../base/normalize-site-url'
export { clientAddress } from '../rate-limit/client-address'
export { networkOf, SHOWN_NETWORK } from '../rate-limit/client-network'
export { type RateLimitStore, rateLimit, retryAfterHeader } from '../rate-limit/rate-limit'
export { ENROLMENT_HOURS, enrolling, enrolmentLink, spendEnrolment } from '../team/enrolment-links'
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
  addMember,
  type LinkEnded,
  listMembers,
  newLink,
  removeMember,
  setRole,
  type TeamChange,
  type TeamMember,
} from '../team/team-members'
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
