import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import { recordFolded } from '../audit/audit-fold'
import { type Actor, recordAudit } from '../audit/audit-record'
import type { Database, Queryable } from '../db/database'
import { CHALLENGE_SECONDS, keepChallenge, takeChallenge } from './challenges'
import { AuthenticationResponse, RegistrationResponse } from './passkey-responses'
import { type SessionMember, startSession } from './team-sessions'

/**
 * The team's passkeys (ADR 099): WebAuthn ceremonies checked by @simplewebauthn/server, as Epic
 * Stack does; this file keeps what the library hands back (the credential's id, public key,
 * counter, transports, backed-up flag) and the challenges it hands out. No CBOR, COSE or
 * attestation is read here.
 */

/** The relying party: SITE_URL's host and origin (`localhost` in development). */
export interface RelyingParty {
  id: string
  name: string
  origin: string
}

/** Whose passkey is being made: an enrolling member's, or a signed-in member's next one. */
export interface PasskeyOwner {
  memberId: string
  email: string
  userHandle: Buffer
}

/** What a ceremony's end gives: done, or why not (for the record and the member's words). */
export type Ceremony<T> = ({ ok: true } & T) | { ok: false; reason: string }

/** Who the record names for a passkey the team does not know. */
const UNKNOWN_PASSKEY = '(unknown passkey)'

const failed = (error: unknown) => ({ ok: false as const, reason: (error as Error).message ?? String(error) })

/** Options for navigator.credentials.create(): a discoverable credential, user verification preferred. */
export async function registrationOptions(
  db: Queryable,
  rp: RelyingParty,
  owner: PasskeyOwner,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.query<{ id: string; transports: string[] }>(
    'select id, transports from private.team_passkeys where member_id = $1::bigint',
    [owner.memberId],
  )
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: owner.email,
    userID: new Uint8Array(owner.userHandle),
    attestationType: 'none',
    timeout: CHALLENGE_SECONDS * 1000,
    excludeCredentials: existing,
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  })
  await keepChallenge(db, options.challenge, 'register', owner.memberId)
  return options
}

/**
 * Checks a new passkey and keeps it, in the caller's transaction (which the enrolment also uses
 * its link up in). The challenge is taken once, whatever the outcome.
 */
export async function addPasskey(
  tx: Queryable,
  rp: RelyingParty,
  owner: PasskeyOwner,
  body: { response: unknown; name: string },
): Promise<Ceremony<{ id: string }>> {
  const response = RegistrationResponse.safeParse(body.response)
  if (!response.success) return { ok: false, reason: 'not a passkey registration' }
  try {
    const verified = await verifyRegistrationResponse({
      response: response.data,
      expectedChallenge: (challenge) => takeChallenge(tx, challenge, 'register', owner.memberId),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    })
    if (!verified.verified) return { ok: false, reason: 'the passkey could not be verified' }
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo
    await tx.run(
      `insert into private.team_passkeys (id, member_id, public_key, counter, transports, device_type, backed_up, name)
       values ($1, $2::bigint, $3, $4, $5, $6, $7, $8)`,
      [
        credential.id,
        owner.memberId,
        Buffer.from(credential.publicKey),
        credential.counter,
        credential.transports ?? [],
        credentialDeviceType,
        credentialBackedUp,
        body.name,
      ],
    )
    return { ok: true, id: credential.id }
  } catch (error) {
    return failed(error)
  }
}

/** Options for navigator.credentials.get(), naming no credential: the passkey says whose it is. */
export async function signInOptions(
  db: Queryable,
  rp: RelyingParty,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'preferred',
    timeout: CHALLENGE_SECONDS * 1000,
  })
  await keepChallenge(db, options.challenge, 'sign-in')
  return options
}

/** Who a passkey signs in, before a session is theirs. */
export type SigningIn = Omit<SessionMember, 'sessionId'>

/** Where a sign-in comes from: the client's network (as the logs show it) and its device in a few words. */
export interface SignInFrom {
  network: string | undefined
  device: string
}

interface StoredPasskey extends SigningIn {
  id: string
  publicKey: Buffer
  counter: string
  transports: string[]
  userHandle: Buffer
}

/**
 * A sign-in with a discoverable passkey: the challenge taken once, the signature and counter
 * checked by the library, the counter kept, a session started (remembering the passkey, so that
 * removing it ends the session) and the sign-in recorded, all in one transaction; a failure is
 * recorded too, under the member's address when the passkey is theirs.
 */
export async function signIn(
  db: Database,
  rp: RelyingParty,
  body: unknown,
  from: SignInFrom,
): Promise<Ceremony<{ member: SigningIn; token: string }>> {
  const { network } = from
  const response = AuthenticationResponse.safeParse(body)
  const passkey = response.success ? await storedPasskey(db, response.data.id) : undefined
  const outcome = await db.transaction(async (tx) => {
    if (!response.success || !passkey) return { ok: false as const, reason: 'no passkey of the team' }
    if (!sameHandle(response.data.response.userHandle, passkey.userHandle))
      return { ok: false as const, reason: 'the passkey names another member' }
    try {
      const verified = await verifyAuthenticationResponse({
        response: response.data,
        expectedChallenge: (challenge) => takeChallenge(tx, challenge, 'sign-in'),
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: Number(passkey.counter),
        },
        requireUserVerification: false,
      })
      if (!verified.verified) return { ok: false as const, reason: 'the signature did not verify' }
      const { newCounter, credentialBackedUp } = verified.authenticationInfo
      await tx.run(
        'update private.team_passkeys set counter = $2, backed_up = $3, last_used_at = now() where id = $1',
        [passkey.id, newCounter, credentialBackedUp],
      )
      const token = await startSession(tx, passkey.memberId, { ...from, passkeyId: passkey.id })
      await recordAudit(tx, { name: passkey.email, network }, { action: 'sign-in', detail: 'passkey' })
      const { memberId, email, role } = passkey
      return { ok: true as const, member: { memberId, email, role }, token }
    } catch (error) {
      return failed(error)
    }
  })
  if (!outcome.ok) await recordFailure(db, passkey?.email, network, outcome.reason)
  return outcome
}

/**
 * A failed sign-in's line. A known member's stays one line each (someone has their passkey, or
 * their device misbehaves); one with a passkey the team does not know is anybody's to send at
 * will, so it folds: one line per network an hour, with how many times (ADR 106).
 */
async function recordFailure(
  db: Database,
  email: string | undefined,
  network: string | undefined,
  reason: string,
) {
  const line = { action: 'sign-in failed', detail: reason }
  if (email === undefined) return recordFolded(db, { name: UNKNOWN_PASSKEY, network }, line)
  await db.transaction((tx) => recordAudit(tx, { name: email, network }, line))
}

/** The userHandle a discoverable credential returns must be its member's, when it returns one. */
const sameHandle = (given: string | undefined, handle: Buffer) =>
  given === undefined || Buffer.from(given, 'base64url').equals(handle)

async function storedPasskey(db: Queryable, id: string): Promise<StoredPasskey | undefined> {
  const [row] = await db.query<StoredPasskey>(
    `select p.id, p.public_key as "publicKey", p.counter::text as counter, p.transports,
            m.id::text as "memberId", m.email::text as email, m.role, m.user_handle as "userHandle"
       from private.team_passkeys p join private.team_members m on m.id = p.member_id
      where p.id = $1`,
    [id],
  )
  return row
}

/** A member's passkeys, as the studio's "Your passkeys" lists them. */
export interface PasskeyInfo {
  id: string
  name: string
  createdAt: string
  lastUsedAt: string
  backedUp: boolean
}

export function listPasskeys(db: Queryable, memberId: string): Promise<PasskeyInfo[]> {
  return db.query<PasskeyInfo>(
    `select id, name, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as "createdAt",
            coalesce(to_char(last_used_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'), '') as "lastUsedAt",
            backed_up as "backedUp"
       from private.team_passkeys where member_id = $1::bigint order by created_at, id`,
    [memberId],
  )
}

/** A member names one of their own passkeys. */
export function renamePasskey(db: Database, actor: Actor, memberId: string, id: string, name: string) {
  return db.transaction(async (tx) => {
    const { affected } = await tx.run(
      'update private.team_passkeys set name = $3 where id = $1 and member_id = $2::bigint',
      [id, memberId, name],
    )
    if (affected === 1) await recordAudit(tx, actor, { action: 'passkey rename', detail: name })
    return affected === 1
  })
}

/**
 * A member removes one of their own passkeys, never the last: without one they could not sign in.
 * The sessions it made end with it (a lost device's, perhaps): how many did.
 */
export function removePasskey(
  db: Database,
  actor: Actor,
  memberId: string,
  id: string,
): Promise<{ sessionsEnded: number } | 'last' | 'unknown'> {
  return db.transaction(async (tx) => {
    const mine = await tx.query<{ id: string; name: string }>(
      'select id, name from private.team_passkeys where member_id = $1::bigint for update',
      [memberId],
    )
    const found = mine.find((passkey) => passkey.id === id)
    if (!found) return 'unknown'
    if (mine.length === 1) return 'last'
    // The foreign key's cascade would end them too; ended here first, they are counted.
    const ended = await tx.run('delete from private.team_sessions where passkey_id = $1', [id])
    await tx.run('delete from private.team_passkeys where id = $1', [id])
    await recordAudit(tx, actor, { action: 'passkey remove', detail: found.name })
    return { sessionsEnded: ended.affected }
  })
}
