/**
 * The lab's team (ADR 113): its members and their roles, and the enrolment links, on the site's
 * address, by which each adds a passkey. The CLI's `team` and the team studio's Team page call
 * these; how a member signs in is sign-in.ts's (its passkeys' code is large, and `team` never reads it).
 */
export { normalizeSiteUrl } from '../base/normalize-site-url'
export { ENROLMENT_HOURS, enrolling, enrolmentLink, spendEnrolment } from '../team/enrolment-links'
// The local studio's one-use links (owner/team-studio/local-session.ts).
export { looksLikeToken, newToken, tokenHash } from '../team/secret-token'
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
