import { type Actor, recordAudit } from '../../audit/audit-record'
import type { Logger } from '../../base/log'
import type { Database, Queryable } from '../../db/database'
import { notify, OUTBOXES } from '../../outbox/outbox-queries'
import { shownNetwork } from '../../rate-limit/client-network'
import { queueEvent } from '../../webhooks/webhook-events'
import type { MailLane } from './mail-pace'
import {
  bouncingNetworks,
  type NetworkWindow,
  networkPauseReason,
  type PausedNetwork,
  pauseNetwork,
  readNetworkWindows,
  readPausedNetworks,
  resumeNetworks,
} from './network-health'

/** The last messages sent that send health looks at, and how many must have gone before it judges. */
export const HEALTH_WINDOW = 1000
export const HEALTH_MIN_SENT = 20

/**
 * The lanes as the owner reads them: confirmations, which anyone who signs an address up causes,
 * and the lab's own mail (invitations and test sends). Each is judged on its own messages and
 * paused on its own, so a stranger's bouncing signups never stop an invitation (ADR 045).
 */
export const LANE_NAMES = { 0: 'confirmations', 1: 'invitations' } as const
export type LaneName = (typeof LANE_NAMES)[MailLane]
export const LANES: readonly MailLane[] = [0, 1]

/**
 * MAIL_PAUSE_BOUNCE_RATE and MAIL_PAUSE_COMPLAINT_RATE (1 turns one off), and the counts a lane
 * must also reach, MAIL_PAUSE_MIN_BOUNCES and MAIL_PAUSE_MIN_COMPLAINTS: no single event pauses.
 * The bounce rate and count are also each signup network's (network-health.ts), and the
 * confirmations lane pauses on bounces only when they came from MAIL_PAUSE_MIN_NETWORKS networks.
 */
export interface PauseLimits {
  bounceRate: number
  complaintRate: number
  minBounces: number
  minComplaints: number
  minNetworks: number
}

/** One lane's last HEALTH_WINDOW messages sent since its window started, for every server on the database. */
export interface LaneHealth {
  lane: MailLane
  name: LaneName
  sent: number
  hardBounces: number
  complaints: number
  windowStartedAt: string
  /** While the lane is paused: since when, and why. */
  paused?: { at: string; reason: string }
  /** The confirmations lane's networks paused now (readSendReport; the gate does not read them). */
  pausedNetworks?: PausedNetwork[]
}

export type SendHealth = Record<LaneName, LaneHealth>

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`

/**
 * Reads each lane's window: its latest messages sent (a synchronous 5xx counts as sent and
 * hard-bounced), through the index on (priority, sent_at) in its order (private.lane_window), so the
 * cost does not grow with the outbox.
 */
export async function readSendHealth(db: Queryable): Promise<SendHealth> {
  const rows = await db.query<{
    lane: MailLane
    sent: number
    hard: number
    complaints: number
    window: string
    pausedAt: string | null
    reason: string | null
  }>(
    `select h.lane, count(r.status)::int as sent,
            count(*) filter (where r.outcome = 'hard' or r.status = 'bounced')::int as hard,
            count(*) filter (where r.outcome = 'complaint')::int as complaints,
            to_char(h.window_started_at at time zone 'UTC', ${ISO}) as window,
            to_char(h.paused_at at time zone 'UTC', ${ISO}) as "pausedAt", h.pause_reason as reason
       from private.mail_health h
       left join lateral private.lane_window(h.lane, h.window_started_at, ${HEALTH_WINDOW}) r on true
      group by h.lane, h.window_started_at, h.paused_at, h.pause_reason`,
  )
  const lanes = LANES.map((lane) => {
    const row = rows.find((candidate) => candidate.lane === lane)
    if (!row) throw new Error(`private.mail_health has no row for lane ${lane}: run the migrations`)
    const health: LaneHealth = {
      lane,
      name: LANE_NAMES[lane],
      sent: row.sent,
      hardBounces: row.hard,
      complaints: row.complaints,
      windowStartedAt: row.window,
    }
    if (row.pausedAt) health.paused = { at: row.pausedAt, reason: row.reason ?? '' }
    return [health.name, health] as const
  })
  return Object.fromEntries(lanes) as SendHealth
}

/** Send health as the owner reads it: each lane, and the confirmations' networks paused now. */
export async function readSendReport(db: Queryable): Promise<SendHealth> {
  const health = await readSendHealth(db)
  health.confirmations.pausedNetworks = await readPausedNetworks(db)
  return health
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`

/**
 * Why a lane's figures call for a pause, in the owner's words, or undefined while they are fine:
 * judged from HEALTH_MIN_SENT messages on, a rate past its limit with at least its minimum count.
 * For the confirmations lane, `networks` is how many networks its bounces came from: fewer than
 * MAIL_PAUSE_MIN_NETWORKS is a few strangers, whom their networks' own pauses hold back.
 */
export function pauseReason(health: LaneHealth, limits: PauseLimits, networks?: number): string | undefined {
  const { sent, hardBounces, complaints } = health
  if (sent < HEALTH_MIN_SENT) return undefined
  const fromNetworks = networks === undefined ? '' : ` from ${networks} networks`
  // A limit of 1 is off: no rate is past it.
  if (
    hardBounces >= limits.minBounces &&
    hardBounces / sent > limits.bounceRate &&
    (networks === undefined || networks >= limits.minNetworks)
  )
    return `hard bounces are ${percent(hardBounces, sent)} of the last ${sent} messages (${hardBounces}${fromNetworks}), past MAIL_PAUSE_BOUNCE_RATE ${limits.bounceRate}`
  if (complaints >= limits.minComplaints && complaints / sent > limits.complaintRate)
    return `complaints are ${percent(complaints, sent)} of the last ${sent} messages (${complaints}), past MAIL_PAUSE_COMPLAINT_RATE ${limits.complaintRate}`
  return undefined
}

/**
 * Pauses one lane for every server, unless it is paused already; true when this call paused it
 * (its server then says why, once) and queued the mail.paused webhook event, whose reason starts
 * with the lane's name.
 */
export async function pauseLane(db: Queryable, lane: MailLane, reason: string): Promise<boolean> {
  const paused = await db.query(
    `update private.mail_health set paused_at = now(), pause_reason = $2
      where lane = $1 and paused_at is null returning 1`,
    [lane, reason],
  )
  if (paused.length === 0) return false
  await queueEvent(db, null, 'mail.paused', `${LANE_NAMES[lane]}: ${reason}`)
  return true
}

/** A lane `deliveries --resume` resumed, and why it had paused. */
export interface ResumedLane {
  name: LaneName
  reason: string
}

/** What `deliveries --resume` ended: the lanes' pauses and the networks'. */
export interface Resumed {
  lanes: ResumedLane[]
  networks: PausedNetwork[]
}

/**
 * Resumes every paused lane and starts its window anew (the messages before it no longer count),
 * and every paused network (network-health.ts), then wakes the senders. With no lane paused,
 * starts both windows anew. Returns the pauses it ended.
 */
export async function resumeSending(db: Database, actor: Actor): Promise<Resumed> {
  return db.transaction(async (tx) => {
    const networks = await resumeNetworks(tx)
    const paused = await tx.query<{ lane: MailLane; reason: string | null }>(
      'select lane, pause_reason as reason from private.mail_health where paused_at is not null order by lane for update',
    )
    await tx.run(
      `update private.mail_health set paused_at = null, pause_reason = null, window_started_at = now()
        where paused_at is not null or $1::boolean`,
      [paused.length === 0],
    )
    await tx.query(`select ${notify(OUTBOXES.mail)}`)
    const lanes = paused.map((row) => ({ name: LANE_NAMES[row.lane], reason: row.reason ?? '' }))
    const resumed = [
      ...lanes.map((lane) => lane.name),
      ...networks.map((network) => shownNetwork(network.network)),
    ]
    if (resumed.length > 0)
      await recordAudit(tx, actor, { action: 'resume', detail: resumed.join(', '), count: resumed.length })
    return { lanes, networks }
  })
}

/**
 * Asked by the mail sender before each claim: reads each lane's shared window, pauses a lane when
 * one of its rates has passed its limit, and names the lanes that may send (ADR 045). A paused
 * lane's queued messages stay queued; the other lane goes on.
 */
export class SendHealthGate {
  /** The last answer: the lanes that may send. While none may, the sender sleeps instead of waking for due messages. */
  open: readonly MailLane[] = LANES

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly limits: PauseLimits,
  ) {}

  async openLanes(): Promise<readonly MailLane[]> {
    const { health, windows } = await this.read()
    const networks = await this.judgeNetworks(windows)
    const open: MailLane[] = []
    for (const lane of Object.values(health)) {
      const reason = lane.paused
        ? undefined
        : pauseReason(lane, this.limits, lane.lane === 0 ? networks : undefined)
      if (reason && (await this.db.transaction((tx) => pauseLane(tx, lane.lane, reason))))
        this.log.error(
          `Sending paused for ${lane.name}: ${reason}. Only ${lane.name} wait, queued; ` +
            'see docs/invitations.md, then run npm run waitlist -- deliveries --resume',
        )
      if (!lane.paused && !reason) open.push(lane.lane)
    }
    this.open = open.sort()
    return this.open
  }

  /**
   * The lanes' figures, and the confirmations' networks once the lane holds enough bounces for any
   * network to pause (a network's are some of the lane's). Those two are read from one snapshot:
   * read apart, a bounce recorded between them made a pause say "7 from 5 networks" where the
   * networks held 9. Below that count, one statement, as on every claim of a bulk send: a
   * transaction there slowed the mail by a quarter (bench/results/from-code-comments.md).
   */
  private async read(): Promise<{ health: SendHealth; windows: readonly NetworkWindow[] }> {
    const health = await readSendHealth(this.db)
    if (health.confirmations.hardBounces < this.limits.minBounces) return { health, windows: [] }
    return this.db.transaction(async (tx) => {
      await tx.query('set transaction isolation level repeatable read, read only')
      const health = await readSendHealth(tx)
      return { health, windows: await readNetworkWindows(tx, HEALTH_WINDOW) }
    })
  }

  /**
   * Pauses each network whose confirmations bounced past the limits (network-health.ts), and says
   * how many networks the lane's bounces came from.
   */
  private async judgeNetworks(windows: readonly NetworkWindow[]): Promise<number> {
    for (const window of windows) {
      const reason = networkPauseReason(window, this.limits)
      const until = reason && window.network && (await pauseNetwork(this.db, window.network, reason))
      if (until)
        this.log.error(
          `Confirmations paused for signups from ${shownNetwork(window.network ?? '')} until ${until}: ${reason}. ` +
            "Other networks' confirmations go on. These resume by themselves then, or now with npm run waitlist -- deliveries --resume",
        )
    }
    return bouncingNetworks(windows)
  }
}
