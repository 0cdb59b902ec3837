import { createHash } from 'node:crypto'
import type { Database } from '../db/database'
import type { Actor, AuditLine } from './audit-record'

/** A line that folds: no entries, nothing counted but its repeats. */
export type FoldedLine = Omit<AuditLine, 'entries' | 'count'>

/** A repeat this long after its line still counts against it; after that, a new line. */
export const FOLD_HOURS = 1

// With the fold key's first four bytes: two servers folding the same thing wait for each other, so
// neither adds a second line, while different things never wait.
const FOLD_LOCK = 73_058_715

/** What makes two lines the same thing: who, what, how, from which network. */
function foldKey(actor: Actor, line: FoldedLine): Buffer {
  const parts = [actor.name, line.action, line.detail ?? '', actor.network ?? '']
  return createHash('sha256').update(JSON.stringify(parts)).digest()
}

/**
 * The one rule for what a stranger can cause at will (failed sign-ins with a passkey the team does
 * not know, refused requests): the first time adds a line to the record, as recordAudit does; the
 * same thing again within FOLD_HOURS of that line adds one to the count beside it
 * (private.audit_repeats), so however many arrive, a network costs the record one line an hour.
 * The record stays append-only: only the count beside a line rises. In a transaction of its own.
 */
export function recordFolded(db: Database, actor: Actor, line: FoldedLine): Promise<void> {
  const key = foldKey(actor, line)
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1, $2)', [FOLD_LOCK, key.readInt32BE(0)])
    const { affected } = await tx.run(
      `update private.audit_repeats set repeats = repeats + 1
        where audit_id = (select r.audit_id from private.audit_repeats r
                            join private.audit_log l on l.id = r.audit_id
                           where r.fold_key = $1 and l.at > now() - make_interval(hours => $2)
                           order by r.audit_id desc limit 1)`,
      [key, FOLD_HOURS],
    )
    if (affected > 0) return
    await tx.query(
      `with line as (
         insert into private.audit_log (actor, action, detail, count, network)
         values (left($1, 300), $2, left($3, 500), 0, $4::cidr) returning id
       )
       insert into private.audit_repeats (audit_id, fold_key) select id, $5 from line`,
      [actor.name, line.action, line.detail ?? null, actor.network ?? null, key],
    )
  })
}
