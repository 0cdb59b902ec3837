import type { Queryable } from '../db/database'
import { isoUtc } from '../db/iso-utc'
import { shownNetwork } from '../rate-limit/client-network'

/** One line of the record as `audit --json` prints it and the studio's Activity page shows it. */
export interface AuditEntry {
  /** UTC, microseconds. */
  at: string
  /** A member's address, or `cli:` and the OS user. */
  actor: string
  action: string
  detail: string
  /** How many entries it changed or read. */
  count: number
  /** The client's network as the logs show it; '' from this machine's own terminal. */
  from: string
  /**
   * How many times it happened: 1, or more for a folded line (a failed sign-in with an unknown
   * passkey, a refused request) when the same thing came again within the hour (audit-fold.ts).
   */
  times: number
}

interface AuditRow extends Omit<AuditEntry, 'from'> {
  id: string
  network: string | null
}

export interface AuditPage {
  lines: AuditEntry[]
  /** Where the next (older, or with `since` newer) page starts; null at the end. */
  next: string | null
}

// `times` last, after `from`: the order `audit --json` has always printed, with the new key at its end.
const asEntry = ({ id: _id, network, times, ...line }: AuditRow): AuditEntry => ({
  ...line,
  from: network ? shownNetwork(network) : '',
  times,
})

/** The columns of a line (`l`) and the count beside it (`r`, joined by REPEATS). */
const COLUMNS = `l.id::text as id, ${isoUtc('l.at')} as at, l.actor, l.action,
   coalesce(l.detail, '') as detail, l.count, l.network::text as network,
   1 + coalesce(r.repeats, 0) as times`
/** The count beside a folded line, when it is one (audit-fold.ts). */
const REPEATS = 'left join private.audit_repeats r on r.audit_id = l.id'

/**
 * A page of the record: with `since` (anything Postgres reads as a time), oldest first from then,
 * as `audit` prints it; without, newest first, as the Activity page shows it. `after` is the
 * `next` a page gave.
 */
export async function readAudit(
  db: Queryable,
  options: { since?: string; after?: string; limit: number },
): Promise<AuditPage> {
  const { since, after, limit } = options
  const oldestFirst = since !== undefined
  const params: unknown[] = [limit + 1]
  const where: string[] = []
  if (since !== undefined) where.push(`l.at >= $${params.push(since)}::timestamptz`)
  if (after !== undefined) where.push(`l.id ${oldestFirst ? '>' : '<'} $${params.push(after)}::bigint`)
  const rows = await db.query<AuditRow>(
    `select ${COLUMNS} from private.audit_log l ${REPEATS}
      ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
      order by l.id ${oldestFirst ? 'asc' : 'desc'} limit $1`,
    params,
  )
  const shown = rows.slice(0, limit)
  return { lines: shown.map(asEntry), next: rows.length > limit ? (shown.at(-1)?.id ?? null) : null }
}

/** Who invited or tagged an entry, and when: the record's lines about it, oldest first. */
export function auditOfEntry(db: Queryable, waitlistId: string): Promise<AuditEntry[]> {
  return db
    .query<AuditRow>(
      `select ${COLUMNS}
         from private.audit_entries e join private.audit_log l on l.id = e.audit_id ${REPEATS}
        where e.waitlist_id = $1::bigint order by l.id`,
      [waitlistId],
    )
    .then((rows) => rows.map(asEntry))
}
