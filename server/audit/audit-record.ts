import { userInfo } from 'node:os'
import type { Queryable } from '../db/database'

/**
 * Who did something: a team member (their address), or `cli:` and the OS user who ran the CLI or
 * the local studio. `network` is the client's address as the logs show it (client-network.ts's
 * shownNetwork), absent on this machine's own terminal.
 */
export interface Actor {
  name: string
  network?: string
}

/** One line of the record: what was done, in a word or two, how, and to how many entries. */
export interface AuditLine {
  /** invite, resend, remove, export, resume, sign-in, sign-in failed, team add… */
  action: string
  /** How, in the owner's words (`next 50 --answer role=Research`); never an entry's address. */
  detail?: string
  count?: number
  /** The entries it is about (their ids), whose history then names who did it. */
  entries?: readonly string[]
}

const MAX_DETAIL = 500

/** The person at this terminal, as the record names them. */
export function cliActor(): Actor {
  let user = process.env.USER ?? 'unknown'
  try {
    user = userInfo().username
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): the environment's word.
  }
  return { name: `cli:${user}` }
}

/**
 * Adds a line to the record, in the caller's transaction: the change and its line are kept or lost
 * together. The record is append-only (a trigger refuses any update or delete).
 */
export async function recordAudit(tx: Queryable, actor: Actor, line: AuditLine): Promise<void> {
  const entries = line.entries ?? []
  const detail = line.detail ? line.detail.slice(0, MAX_DETAIL) : null
  await tx.query(
    `with line as (
       insert into private.audit_log (actor, action, detail, count, network)
       values (left($1, 300), $2, $3, $4, $5::cidr) returning id
     )
     insert into private.audit_entries (waitlist_id, audit_id)
     select distinct unnest($6::bigint[]), line.id from line`,
    [actor.name, line.action, detail, line.count ?? entries.length, actor.network ?? null, entries],
  )
}
