import { createHash } from 'node:crypto'
import { type Actor, recordAudit } from '../audit/audit-record'
import type { Database, Queryable } from '../db/database'

/**
 * The erased list kept beside the backup (issue 65, item 4): every keyed hash that keeps an erased
 * or removed mailbox out, never an address, as a whole snapshot each time it changes, so the
 * latest snapshot also tells each lifting since (a hash no longer in it). A restore brings back the
 * list as it was at an earlier moment; erasures made after that moment are in the ledger and not
 * in the restored list, and are made again (GDPR Art. 17 through backups).
 */
export interface ErasureLedger {
  at: string
  erased: { hash: string; at: string; why: string }[]
}

export async function readLedger(db: Queryable): Promise<ErasureLedger> {
  const erased = await db.query<{ hash: string; at: string; why: string }>(
    `select encode(hash, 'hex') as hash, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, why
       from private.suppressed order by hash`,
  )
  return { at: new Date().toISOString(), erased }
}

/** Changes only when the erased list does: the snapshot is uploaded again only then. */
export const ledgerDigest = (ledger: ErasureLedger) =>
  createHash('sha256').update(JSON.stringify(ledger.erased)).digest('hex')

const RESTORE: Actor = { name: 'restore' }

/**
 * Makes again, in one transaction, each erasure of the ledger that the restored list does not hold:
 * its entry goes (whatever address it came back under, matched by the keyed hash) and the hash is
 * kept. The record says how many, never who. Returns how many hashes were applied and entries erased.
 */
export async function reapplyErasures(
  db: Database,
  ledger: ErasureLedger,
): Promise<{ hashes: number; entries: number }> {
  return db.transaction(async (tx) => {
    const missing = await tx.query<{ hash: string; at: string; why: string }>(
      `select l.hash, l.at, l.why from jsonb_to_recordset($1::jsonb) as l(hash text, at text, why text)
        where not exists (select from private.suppressed s where s.hash = decode(l.hash, 'hex'))`,
      [JSON.stringify(ledger.erased)],
    )
    if (missing.length === 0) return { hashes: 0, entries: 0 }
    const hashes = missing.map((row) => row.hash)
    const { affected } = await tx.run(
      `delete from public.waitlist w
        where private.suppression_hash(w.email::text) = any (select decode(h, 'hex') from unnest($1::text[]) h)`,
      [hashes],
    )
    await tx.run(
      `insert into private.suppressed (hash, at, why)
       select decode(l.hash, 'hex'), l.at::timestamptz, l.why from jsonb_to_recordset($1::jsonb) as l(hash text, at text, why text)
       on conflict (hash) do nothing`,
      [JSON.stringify(missing)],
    )
    await recordAudit(tx, RESTORE, { action: 'erasures re-applied', count: affected })
    return { hashes: missing.length, entries: affected }
  })
}
