import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../../base/log'
import type { Database, Queryable } from '../../db/database'
import { type CheckLine, line, passes } from './preflight-lines'

/**
 * The door between the owner's tools and the running server for the preflight (ADR 120), as for
 * sending: the tool writes a request row and a NOTIFY; a server that sends claims it (SKIP LOCKED,
 * so one of several answers), checks with its own settings and writes the lines back; the tool
 * waits for them. The CLI therefore needs no mail or DNS settings of its own.
 */

const CHANNEL = 'preflight_runs'

/** A preflight as a server answered it. */
export interface PreflightRun {
  id: string
  checkedAt: Date
  /** MAIL_FROM of the server that checked. */
  mailFrom: string
  passed: boolean
  lines: CheckLine[]
}

/** How long the tools wait for a server's answer: DNS time-outs included, with room to spare. */
export const ANSWER_WITHIN_MS = 20_000

/** A passing answer stands this long for `invite`; a failing or unchecked one never stands. */
export const PASS_KEPT_MS = 60 * 60_000

const COLUMNS = `id::text as id, checked_at as "checkedAt", mail_from as "mailFrom", passed, lines`

/** Asks the running servers for a preflight; resolves to the request's id. */
export async function requestPreflight(db: Database, requestedBy: string): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `with asked as (insert into private.preflight_runs (requested_by) values (left($1, 300)) returning id)
     select id::text as id, pg_notify('${CHANNEL}', id::text) from asked`,
    [requestedBy],
  )
  const id = rows[0]?.id
  if (!id) throw new Error('the preflight request was not written')
  return id
}

/** The answer to request `id`, once a server has written it; undefined past `withinMs`. */
export async function awaitPreflight(db: Queryable, id: string, withinMs = ANSWER_WITHIN_MS) {
  const deadline = Date.now() + withinMs
  for (let wait = 20; Date.now() < deadline; wait = Math.min(wait * 2, 250)) {
    const [run] = await db.query<PreflightRun>(
      `select ${COLUMNS} from private.preflight_runs where id = $1 and checked_at is not null`,
      [id],
    )
    if (run) return run
    await sleep(wait)
  }
  return undefined
}

/** The latest passing answer for this sender within the hour, if any. */
export async function recentPass(db: Queryable, mailFrom: string): Promise<PreflightRun | undefined> {
  const [run] = await db.query<PreflightRun>(
    `select ${COLUMNS} from private.preflight_runs
      where checked_at > now() - make_interval(secs => $2::double precision / 1000)
        and passed and mail_from = $1
      order by checked_at desc limit 1`,
    [mailFrom, PASS_KEPT_MS],
  )
  return run
}

/** The latest answered preflight, whoever asked and for whichever sender: the studio's "Last preflight". */
export async function lastRun(db: Queryable): Promise<PreflightRun | undefined> {
  const [run] = await db.query<PreflightRun>(
    `select ${COLUMNS} from private.preflight_runs
      where checked_at is not null order by checked_at desc limit 1`,
  )
  return run
}

/** What the tools say when no server answered: a check that could not be made. */
export const NO_ANSWER: CheckLine = line(
  'preflight',
  'unchecked',
  `no running server with SMTP_URL answered within ${ANSWER_WITHIN_MS / 1000} s: start it, and ask again`,
)

/** Claims the oldest unanswered request, or none; requests older than a minute are left (nobody waits). */
async function claim(db: Database): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>(
    `update private.preflight_runs set claimed_at = now()
      where id = (select id from private.preflight_runs
                   where claimed_at is null and requested_at > now() - interval '1 minute'
                   order by id limit 1 for update skip locked)
      returning id::text as id`,
  )
  return row?.id
}

async function answer(db: Database, id: string, mailFrom: string, lines: CheckLine[]): Promise<void> {
  await db.query(
    `update private.preflight_runs set checked_at = now(), mail_from = $2, passed = $3, lines = $4::jsonb
      where id = $1`,
    [id, mailFrom, passes(lines), JSON.stringify(lines)],
  )
}

/**
 * Answers preflight requests on this server: every request waiting at start, then each NOTIFY.
 * One at a time; a check that throws answers with its error as an unchecked line, never silence.
 */
export async function startPreflightResponder(
  db: Database,
  log: Logger,
  check: { mailFrom: string; run: () => Promise<CheckLine[]> },
): Promise<{ stop(): Promise<void> }> {
  let busy: Promise<void> = Promise.resolve()
  const drain = async () => {
    for (let id = await claim(db); id; id = await claim(db)) {
      const lines = await check.run().catch((error: unknown) => {
        log.error('The preflight failed', error)
        return [line('preflight', 'unchecked', `the check itself failed: ${String(error)}`)]
      })
      await answer(db, id, check.mailFrom, lines)
    }
  }
  const wake = () => {
    busy = busy.then(drain).catch((error: unknown) => log.error('Answering a preflight failed', error))
  }
  const unlisten = await db.listen(CHANNEL, wake)
  wake()
  return {
    async stop() {
      await unlisten()
      await busy
    },
  }
}
