import { type ConsentAgent, shownAgent } from '../../../contract/agent-words'
import type { StoredAgent } from '../../agents/agent-record'
import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { shownNetwork } from '../../rate-limit/client-network'
import {
  type ConsentDoor,
  type DoorWords,
  serverDoorTexts,
  type WordsVersion,
  wordsVersion,
} from './door-words'

/**
 * The consent record of an entry (public.waitlist's `consent_*` columns, which the insert itself
 * fills from the server's settings, or `import` writes): the words' versions it points to,
 * registered here; the record as `show`, the studio and the person's own page read it; the
 * confirmation's network.
 */

/** An entry's consent, as `show --json` prints it (docs/privacy.md). */
export interface ConsentRecord {
  /** UTC, microseconds: when the signup (or the import) recorded it. */
  at: string
  door: ConsentDoor
  /** The words the door showed; text null when this database does not hold that version's text. */
  words: { version: string; text: string | null } | null
  /** The signup's network, cut as the logs cut it (IPv4 /24, IPv6 /48); null when none was known. */
  network: string | null
  /**
   * The agent: as its client declared itself (never verified), and what the Web Bot Auth check of
   * a signed request found (verified only for a listed agent whose signature held; ADR 121).
   */
  agent: ConsentAgent | null
  confirmed_at: string | null
  /** The network the confirmation came from, cut as the logs cut it. */
  confirmed_from: string | null
}

/**
 * Stores each version once (a version already held is left as it is); returns them. The conflict
 * names no constraint: version and hash are both unique, and servers starting together can meet
 * on either.
 */
export async function registerWords(db: Queryable, texts: readonly string[]): Promise<WordsVersion[]> {
  const versions = texts.map(wordsVersion)
  const unique = [...new Map(versions.map((v) => [v.version, v])).values()]
  await db.query(
    `insert into private.consent_words (version, hash, text)
     select * from unnest($1::text[], $2::bytea[], $3::text[])
     on conflict do nothing`,
    [unique.map((v) => v.version), unique.map((v) => v.hash), unique.map((v) => v.text)],
  )
  return versions
}

/**
 * At a server's start: the words its doors show (given its CONFIRM_SIGNUPS), each version stored
 * once, and the version each door's signups will point to.
 */
export async function registerDoorWords(db: Queryable, confirmSignups: boolean): Promise<DoorWords> {
  const texts = serverDoorTexts(confirmSignups)
  const doors = Object.keys(texts) as (keyof typeof texts)[]
  const versions = await registerWords(
    db,
    doors.map((door) => texts[door]),
  )
  return Object.fromEntries(doors.map((door, index) => [door, versions[index]?.version]))
}

interface ConsentRow {
  at: string
  door: ConsentDoor | null
  version: string | null
  text: string | null
  network: string | null
  agent: StoredAgent | null
  confirmedAt: string | null
  confirmedFrom: string | null
}

/** The consent record of the entry `waitlistId`; null for an entry from before the lab kept one. */
export async function consentOf(db: Queryable, waitlistId: string): Promise<ConsentRecord | null> {
  const [row] = await db.query<ConsentRow>(
    `select ${isoUtc('w.consent_at')} as at, w.consent_door as door, w.consent_words as version, cw.text,
            w.signup_network::text as network, w.consent_agent as agent,
            ${isoUtc('s.confirmed_at')} as "confirmedAt", w.confirmed_from::text as "confirmedFrom"
       from public.waitlist w
       left join private.consent_words cw on cw.version = w.consent_words
       left join private.entry_status s on s.waitlist_id = w.id
      where w.id = $1::bigint`,
    [waitlistId],
  )
  if (!row?.door) return null
  return {
    at: row.at,
    door: row.door,
    words: row.version ? { version: row.version, text: row.text } : null,
    network: row.network ? shownNetwork(row.network) : null,
    agent: shownAgent(row.agent),
    confirmed_at: row.confirmedAt,
    confirmed_from: row.confirmedFrom,
  }
}

/** The confirmation's network, in the confirmation's transaction: cut as the logs cut it (shownNetwork). */
export async function recordConfirmation(tx: Queryable, waitlistId: string, network: string | undefined) {
  if (!network) return
  await tx.run('update public.waitlist set confirmed_from = $2::cidr where id = $1::bigint', [
    waitlistId,
    shownNetwork(network),
  ])
}

/** One version of the words, as `consent-words` lists it. */
export interface WordsUse {
  version: string
  /** The full SHA-256, hex; null for a version an import named that this database holds no text of. */
  hash: string | null
  text: string | null
  /** The doors whose records point to it. */
  doors: ConsentDoor[]
  /** How many entries' records point to it now. */
  entries: number
  /** The first and last consent recorded with it, among the entries held (UTC); null for none. */
  first: string | null
  last: string | null
  /** When a server (or an import) first stored it. */
  registered: string | null
}

/**
 * Every version of the words, oldest use first: those stored, and any an imported record names
 * whose text this database does not hold. One pass over the records (an owner's command).
 */
export function listWords(db: Queryable): Promise<WordsUse[]> {
  return db.query<WordsUse>(
    `with used as (
       select consent_words as version, array_agg(distinct consent_door order by consent_door) as doors,
              count(*)::int as entries, min(consent_at) as first, max(consent_at) as last
         from public.waitlist where consent_words is not null group by consent_words
     )
     select coalesce(w.version, u.version) as version, encode(w.hash, 'hex') as hash, w.text,
            coalesce(u.doors, '{}') as doors, coalesce(u.entries, 0) as entries,
            ${isoUtc('u.first')} as first, ${isoUtc('u.last')} as last,
            ${isoUtc('w.registered_at')} as registered
       from private.consent_words w full join used u on u.version = w.version
      order by coalesce(u.first, w.registered_at), 1`,
  )
}
