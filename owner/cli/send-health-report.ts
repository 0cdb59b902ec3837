import { cliActor } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'
import {
  HEALTH_MIN_SENT,
  HEALTH_WINDOW,
  type LaneHealth,
  readSendReport,
  resumeSending,
} from '../../server/admin/sending'

type Print = (line: string) => void

const percent = (part: number, whole: number) =>
  whole === 0 ? '0.0%' : `${((100 * part) / whole).toFixed(1)}%`

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`

function printLane(lane: LaneHealth, print: Print): void {
  const { sent, hardBounces, complaints } = lane
  const judged = sent >= HEALTH_MIN_SENT ? '' : ` (judged from ${HEALTH_MIN_SENT} on)`
  print(
    `Send health, ${lane.name}: ${sent} sent since ${lane.windowStartedAt}${judged}: ` +
      `hard bounces ${hardBounces} (${percent(hardBounces, sent)}), complaints ${complaints} (${percent(complaints, sent)}).`,
  )
}

/**
 * `deliveries`' first lines: each lane's rates (confirmations, which strangers can cause, apart from
 * the lab's invitations) and, for a paused lane, why; then each network whose confirmations wait
 * (ADR 083), masked as the server's log masks it.
 */
export async function printSendHealth(db: Database, print: Print): Promise<void> {
  const health = await readSendReport(db)
  const lanes = [health.invitations, health.confirmations]
  print(`Send health counts each lane's last ${HEALTH_WINDOW.toLocaleString('en')} messages.`)
  for (const lane of lanes) printLane(lane, print)
  for (const lane of lanes)
    if (lane.paused)
      print(
        `${capitalised(lane.name)} are paused since ${lane.paused.at}: ${lane.paused.reason}. Queued ${lane.name} wait; ` +
          'the other lane is judged apart. Find the cause (docs/invitations.md), then: npm run waitlist -- deliveries --resume',
      )
  for (const paused of health.confirmations.pausedNetworks ?? [])
    print(
      `Confirmations from ${paused.network} are paused since ${paused.at}, until ${paused.until}: ${paused.reason}. ` +
        "Other networks' confirmations go on; these go by themselves then, or now with: npm run waitlist -- deliveries --resume",
    )
}

/**
 * `deliveries --resume`: every paused lane resumes with a new window, and every paused network's
 * confirmations go, for every server on the database.
 */
export async function resumeCommand(db: Database, print: Print): Promise<number> {
  const { lanes, networks } = await resumeSending(db, cliActor())
  for (const lane of lanes)
    print(
      `${capitalised(lane.name)} resumed (they were paused: ${lane.reason}). A new window starts now; a running server sends the queued ${lane.name}.`,
    )
  for (const paused of networks)
    print(
      `Confirmations from ${paused.network} resumed (they were paused: ${paused.reason}); its bounces so far no longer count.`,
    )
  if (lanes.length === 0)
    print(
      networks.length === 0
        ? 'Sending was not paused. New windows start now: the messages sent before them no longer count.'
        : 'No lane was paused. New windows start now: the messages sent before them no longer count.',
    )
  return 0
}
