import type {
  PublicKeyCredentialCreationOptionsJSON as CreationOptions,
  PublicKeyCredentialRequestOptionsJSON as RequestOptions,
} from '@simplewebauthn/browser'
import type { Role } from '../../contract/team-roles'
import type { AuditEntry, AuditPage } from '../../server/admin/audit'
import type { PasskeyInfo, SessionInfo } from '../../server/admin/sign-in'
import type { TeamMember } from '../../server/admin/team'
import { STUDIO_ROOT, send } from './api'

/**
 * The team studio's own calls (owner/team-studio/): signing in and enrolling, which need no
 * session, then who is signed in, the record, the team, one's passkeys and one's sessions. The
 * ceremonies' options and answers pass through as @simplewebauthn/browser reads and writes them.
 */

export type { AuditEntry, PasskeyInfo, Role, SessionInfo, TeamMember }

const post = (body: unknown = {}): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
})

/** A sign-in's or an enrolment's call, which answers in words when it refuses. */
async function auth<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${STUDIO_ROOT}/auth/${path}`, { ...post(body), credentials: 'same-origin' })
  const answer = (await response.json().catch(() => ({}))) as T & { error?: string }
  if (!response.ok) throw new Error(answer.error ?? `The studio answered ${response.status}`)
  return answer
}

export interface Me {
  email: string
  role: Role
}

export const signInOptions = () => auth<RequestOptions>('sign-in/options')
export const verifySignIn = (response: unknown) => auth<Me>('sign-in/verify', { response })
export const enrolOptions = (token: string) =>
  auth<Me & { options: CreationOptions }>('enrol/options', { token })
export const verifyEnrolment = (token: string, name: string, response: unknown) =>
  auth<Me>('enrol/verify', { token, name, response })
export const signOut = () => auth<{ signedOut: true }>('sign-out')

export const fetchMe = () => send<Me>('/api/me')
export const fetchActivity = (after?: string) =>
  send<AuditPage>(`/api/activity${after ? `?${new URLSearchParams({ after })}` : ''}`)

export const fetchTeam = () => send<{ members: TeamMember[] }>('/api/team')
export const changeTeam = (
  action: 'add' | 'role' | 'remove' | 'link',
  body: { email: string; role?: Role },
) => send<{ done: true; email: string; link?: string }>(`/api/team/${action}`, post(body))

export const fetchPasskeys = () => send<{ passkeys: PasskeyInfo[] }>('/api/passkeys')
export const passkeyOptions = () => send<CreationOptions>('/api/passkeys/options', post())
export const addPasskey = (name: string, response: unknown) =>
  send<{ added: string }>('/api/passkeys/verify', post({ name, response }))
export const renamePasskey = (id: string, name: string) => send('/api/passkeys/rename', post({ id, name }))
export const removePasskey = (id: string) =>
  send<{ removed: true; sessionsEnded: number }>('/api/passkeys/remove', post({ id }))

export const fetchSessions = () => send<{ sessions: SessionInfo[] }>('/api/sessions')
export const endSession = (id: string) => send<{ ended: string }>('/api/sessions/end', post({ id }))
