import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../../harness/waitlist-cli'
import type { Queryable } from '../../server/db/database'

/**
 * A small list to choose a cohort from (issue 43): statuses, sources and answers as the signup
 * doors leave them (the server's `request.source`, the confirmation page), oldest first, a day apart.
 */
export const COHORT = [
  ['ada@example.com', 'waiting', 'launch-post', { role: 'Research', organisation: 'Example University' }],
  ['bo@example.com', 'waiting', 'launch-post', { role: 'Engineering', organisation: 'Acme Robotics' }],
  ['cy@example.com', 'waiting', 'direct', { role: 'Research', organisation: 'ACME labs' }],
  ['di@example.com', 'waiting', 'direct', {}],
  ['ed@example.com', 'unsubscribed', 'launch-post', { role: 'Research' }],
  ['fay@example.com', 'waiting', null, { organisation: '100% sure' }],
] as const

/** Imports COHORT with `import` (statuses and signup times), then gives each entry its source and answers. */
export async function addCohort(env: Record<string, string>, db: Queryable): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), 'studio-cohort-'))
  try {
    const file = join(scratch, 'list.csv')
    const lines = COHORT.map(([email, status], index) => `${email},2024-11-0${index + 1}T09:00:00Z,${status}`)
    await writeFile(file, `email,created_at,status\n${lines.join('\n')}\n`)
    const imported = await runCli(env, 'import', file)
    if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`)
  } finally {
    await rm(scratch, { recursive: true })
  }
  for (const [email, , source, answers] of COHORT) {
    // The page's doors keep the signup's network beside its source (funnel.ts: a signup on a visit).
    await db.query(
      `update public.waitlist set source = $2,
              signup_network = case when $2::text is null then null else '192.0.2.0/24'::cidr end
        where email = $1`,
      [email, source],
    )
    if (Object.keys(answers).length > 0)
      await db.query(
        `insert into private.entry_answers (waitlist_id, answers)
         select id, $2::jsonb from public.waitlist where email = $1`,
        [email, JSON.stringify(answers)],
      )
  }
}

/** The invitations queued, oldest first, with the batch each belongs to. */
export const queuedInvitations = (db: Queryable) =>
  db.query<{ email: string; by: string; chosenBy: string; size: number }>(
    `select w.email::text as email, b.invited_by as by, b.chosen_by as "chosenBy", b.size
       from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
       join private.invite_batches b on b.id = o.batch_id
      where o.kind = 'invitation' order by o.id`,
  )
