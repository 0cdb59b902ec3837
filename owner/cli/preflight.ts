import { cliActor } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'
import { askPreflight, formatLine, passes, readMailSettings } from '../../server/admin/sending'
import { EXIT } from './exit-status'

type Print = (line: string) => void

/**
 * `preflight`: the running server reads its sender's DNS with its own settings and answers through
 * the database (ADR 120); the CLI prints its lines. Exit 0 when every check passes (warnings
 * pass), 1 when any fails or could not be made, or no server that sends answered.
 */
export async function preflightCommand(db: Database, print: Print = console.log): Promise<number> {
  const passed = await printPreflight(db, print)
  print(
    passed
      ? 'The preflight passes: invitations may go.'
      : 'The preflight does not pass: `invite` holds every batch until it does.',
  )
  return passed ? EXIT.done : EXIT.nothingDone
}

/** The running server's preflight, a line each, as `preflight` and `invite --test` print it; whether it passes. */
export async function printPreflight(db: Database, print: Print): Promise<boolean> {
  const settings = await readMailSettings(db)
  const answer = await askPreflight(db, cliActor().name)
  const lines = 'run' in answer ? answer.run.lines : answer.noAnswer
  if ('run' in answer) print(`Preflight of ${answer.run.mailFrom}, by the running server:`)
  else if (!settings.senderConfigured)
    print('No server with SMTP_URL has started on this database: there is no sender to check yet.')
  for (const line of lines) for (const text of formatLine(line)) print(text)
  return passes(lines)
}
