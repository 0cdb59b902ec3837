import type { EntryStatus } from '../../contract/entry-statuses'
import type { Answers } from '../../contract/signup-questions'
import type { Queryable } from '../db/database'
import { entryHistory } from './admin/entry-history'
import type { ConsentRecord } from './consent/consent-record'
import { type PersonHistoryItem, personConsent, personHistory, personSource } from './person-history'

/**
 * What the lab holds about one address, as the person's own page shows it and its download gives
 * it (GDPR Art. 15 and 20): the entry, their name, its status, its answers (kept, and any an agent
 * proposed), what an import brought besides (its details), the team's tags and note, its consent
 * record and its history. Under Art. 15 the copy covers all personal data the lab holds, the
 * team's notes included (ADR 117, superseding ADR 090's "never to the person"); what it leaves out
 * is who on the team did what (its members' addresses are theirs, not the person's), and it tells
 * the history in the person's words (person-history.ts), naming no file of the lab's.
 */
export interface PersonData {
  email: string
  name: string | null
  status: EntryStatus
  /** When the entry was made (UTC, microseconds): its history's first line. */
  signed_up_at: string | null
  source: string | null
  answers: Answers
  proposed: Answers
  /** What the lab's earlier list held besides, column → value, as the list had it. */
  details: Record<string, unknown>
  /** The team's tags and note about the person. */
  tags: string[]
  note: string | null
  consent: ConsentRecord | null
  history: PersonHistoryItem[]
}

export async function personData(db: Queryable, email: string): Promise<PersonData | undefined> {
  const entry = await entryHistory(db, email, 'person')
  if (!entry) return undefined
  const signedUp = entry.history.find((item) => item.event === 'signed up')
  return {
    email: entry.email,
    name: entry.name,
    status: entry.status,
    signed_up_at: signedUp?.at ?? null,
    source: personSource(entry.source),
    answers: entry.answers,
    proposed: entry.proposed,
    details: entry.details,
    tags: entry.tags,
    note: entry.note,
    consent: personConsent(entry.consent),
    history: personHistory(entry.history, entry.consent),
  }
}
