import type { EntryStatus } from '../../contract/entry-statuses'
import type { Answers } from '../../contract/signup-questions'
import type { Queryable } from '../db/database'
import { entryHistory, type HistoryItem } from './admin/entry-history'
import type { ConsentRecord } from './consent/consent-record'

/**
 * What the lab holds about one address, as the person's own page shows it and its download gives
 * it (GDPR Art. 15 and 20): the entry, its status, its answers (kept, and any an agent proposed),
 * its consent record and its history. Named field by field from the entry's person view, which holds
 * no record of who on the team did what and no tag or note event, so what the team keeps for itself
 * (tags, notes, its members' addresses) never reaches the person's page (ADR 090).
 */
export interface PersonData {
  email: string
  status: EntryStatus
  /** When the entry was made (UTC, microseconds): its history's first line. */
  signed_up_at: string | null
  source: string | null
  answers: Answers
  proposed: Answers
  consent: ConsentRecord | null
  history: HistoryItem[]
}

export async function personData(db: Queryable, email: string): Promise<PersonData | undefined> {
  const entry = await entryHistory(db, email, 'person')
  if (!entry) return undefined
  const signedUp = entry.history.find((item) => item.event === 'signed up')
  return {
    email: entry.email,
    status: entry.status,
    signed_up_at: signedUp?.at ?? null,
    source: entry.source,
    answers: entry.answers,
    proposed: entry.proposed,
    consent: entry.consent,
    history: entry.history.map(({ at, event, detail, kind, outcome }) => ({
      at,
      event,
      detail,
      kind,
      outcome,
    })),
  }
}
