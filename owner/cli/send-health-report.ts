import type { Database } from '../../server/db/database'
import {
  HEALTH_MIN_SENT,
  HEALTH_WINDOW,
  readSendHealth,
  resumeSending,
} from '../../server/waitlist/mail-events/send-health'

type Print = (line: string) => void

const percent = (part: number, whole: number) =>
  whole === 0 ? '0.0%' : `${((100 * part) / whole).toFixed(1)}%`

/** `deliveries`' first lines: the rates of the shared window and, while sending is paused, why. */
export async function printSendHealth(db: Database, print: Print): Promise<void> {
  const health = await readSendHealth(db)
  const { sent, hardBounces, complaints } = health
  const judged = sent >= HEALTH_MIN_SENT ? '' : ` (judged from ${HEALTH_MIN_SENT} on)`
  print(
    `Send health: ${sent} sent since ${health.windowStartedAt} (the last ${HEALTH_WINDOW.toLocaleString('en')} count)${judged}: ` +
      `hard bounces ${hardBounces} (${percent(hardBounces, sent)}), complaints ${complaints} (${percent(complaints, sent)}).`,
  )
  if (health.paused)
    print(
      `Sending is paused since ${health.paused.at}: ${health.paused.reason}. Queued mail waits. ` +
        'Find the cause (docs/invitations.md), then: npm run waitlist -- deliveries --resume',
    )
}

/** `deliveries --resume`: sending resumes and a new window starts, for every server on the database. */
export async function resumeCommand(db: Database, print: Print): Promise<number> {
  const ended = await resumeSending(db)
  print(
    ended
      ? `Sending resumed (it was paused: ${ended.reason}). A new window starts now; a running server sends the queued mail.`
      : 'Sending was not paused. A new window starts now: the messages sent before it no longer count.',
  )
  return 0
}
