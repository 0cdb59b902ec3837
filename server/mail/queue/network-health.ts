import type { Database, Queryable } from '../../db/database'
import { shownNetwork } from '../../rate-limit/client-network'

/**
 * Send health per signup network, inside the confirmations lane (ADR 083). Anyone can make the lab
 * send a confirmation, so a stranger's bouncing signups are judged by the network they came from
 * (public.waitlist.signup_network: an IPv4 /24, an IPv6 /64): past the bounce rate, with at least
 * the minimum count, that network's confirmations wait NETWORK_PAUSE_HOURS, and every other
 * network's go on. The lane as a whole pauses only when its bounces come from several networks.
 *
 * A pause is held in the outbox itself: the network's pending confirmations are due at the pause's
 * end (private.hold_paused_network moves any queued or retried meanwhile), so the claim, the
 * next-due query and the retry need no rule of their own, and the sender wakes when it ends.
 */

/** How long a network's confirmations wait once its bounces paused them; then they go by themselves. */
export const NETWORK_PAUSE_HOURS = 24

/** One network's confirmations in the lane's window, counted since its last pause ended. */
export interface NetworkWindow {
  /** As kept (CIDR text); null for the entries kept without one, each then a network of its own. */
  network: string | null
  sent: number
  hardBounces: number
  /** Entries that bounced: for the entries without a network, how many networks they count as. */
  bouncedEntries: number
  /** Paused now. */
  paused: boolean
}

/** The rate and count a network's confirmations must pass, as a lane's (MAIL_PAUSE_*). */
export interface NetworkLimits {
  bounceRate: number
  minBounces: number
}

/**
 * The networks whose confirmations bounced in the confirmations lane's window (its last `size`
 * sent since its window started), each with its confirmations sent and bounced since its own last
 * pause ended: bounces a pause answered do not count twice.
 */
export function readNetworkWindows(db: Queryable, size: number): Promise<NetworkWindow[]> {
  return db.query<NetworkWindow>(
    `with win as (
       select (r.outcome = 'hard' or r.status = 'bounced') as hard, r.sent_at, r.waitlist_id,
              w.signup_network as network
         from private.mail_health h
        cross join lateral private.lane_window(h.lane, h.window_started_at, $1) r
         left join public.waitlist w on w.id = r.waitlist_id
        where h.lane = 0
     )
     select win.network::text as network,
            count(*) filter (where win.sent_at >= coalesce(p.paused_until, '-infinity'))::int as sent,
            count(*) filter (where win.hard and win.sent_at >= coalesce(p.paused_until, '-infinity'))::int
              as "hardBounces",
            count(distinct win.waitlist_id) filter (where win.hard)::int as "bouncedEntries",
            coalesce(bool_or(p.paused_until > now()), false) as paused
       from win left join private.network_pauses p on p.network = win.network
      group by win.network
     having bool_or(win.hard)`,
    [size],
  )
}

/** How many networks the lane's bounces came from: each kept network once, each entry without one alone. */
export const bouncingNetworks = (windows: readonly NetworkWindow[]) =>
  windows.reduce((count, window) => count + (window.network === null ? window.bouncedEntries : 1), 0)

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`

/** Why a network's confirmations should pause, in the owner's words, or undefined. */
export function networkPauseReason(window: NetworkWindow, limits: NetworkLimits): string | undefined {
  const { network, sent, hardBounces } = window
  if (network === null || window.paused) return undefined
  // A rate of 1 is off: no rate is past it.
  if (hardBounces < limits.minBounces || hardBounces / sent <= limits.bounceRate) return undefined
  return `hard bounces are ${percent(hardBounces, sent)} of its last ${sent} confirmations (${hardBounces}), past MAIL_PAUSE_BOUNCE_RATE ${limits.bounceRate}`
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`

/**
 * Pauses one network's confirmations for every server, unless it is paused already: its pending
 * confirmations are due when the pause ends. Returns that time (ISO, UTC) when this call paused it.
 */
export async function pauseNetwork(
  db: Database,
  network: string,
  reason: string,
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const [paused] = await tx.query<{ until: string; held: string }>(
      `insert into private.network_pauses as p (network, paused_until, reason)
       values ($1::cidr, now() + make_interval(hours => $2), $3)
       on conflict (network) do update
         set paused_at = now(), paused_until = excluded.paused_until, reason = excluded.reason
         where p.paused_until <= now()
       returning to_char(p.paused_until at time zone 'UTC', ${ISO}) as until, p.paused_until::text as held`,
      [network, NETWORK_PAUSE_HOURS, reason],
    )
    if (!paused) return undefined
    // From the lane's pending messages (its index), each entry by its key: no scan of the list.
    await tx.run(
      `update private.mail_outbox o set run_at = $2::timestamptz
        where o.status = 'pending' and o.priority = 0 and o.kind = 'confirmation' and o.run_at < $2::timestamptz
          and (select w.signup_network from public.waitlist w where w.id = o.waitlist_id) = $1::cidr`,
      [network, paused.held],
    )
    return paused.until
  })
}

/** A network whose confirmations wait, as the owner reads it: masked as the log masks it. */
export interface PausedNetwork {
  network: string
  at: string
  until: string
  reason: string
}

/** The networks paused now, oldest pause first. */
export async function readPausedNetworks(db: Queryable): Promise<PausedNetwork[]> {
  const rows = await db.query<PausedNetwork>(
    `select network::text as network, to_char(paused_at at time zone 'UTC', ${ISO}) as at,
            to_char(paused_until at time zone 'UTC', ${ISO}) as until, reason
       from private.network_pauses where paused_until > now() order by paused_at, network`,
  )
  return rows.map((row) => ({ ...row, network: shownNetwork(row.network) }))
}

/**
 * Ends every network's pause now, in the caller's transaction: the confirmations it held are due
 * at once, and its bounces so far no longer count. Returns the pauses it ended, masked.
 */
export async function resumeNetworks(tx: Queryable): Promise<PausedNetwork[]> {
  // `held` as text: the microseconds a JavaScript Date would drop are what the match below needs.
  const paused = await tx.query<PausedNetwork & { held: string }>(
    `select network::text as network, to_char(paused_at at time zone 'UTC', ${ISO}) as at,
            to_char(paused_until at time zone 'UTC', ${ISO}) as until, reason, paused_until::text as held
       from private.network_pauses where paused_until > now() order by paused_at, network for update`,
  )
  if (paused.length === 0) return []
  const networks = paused.map((row) => row.network)
  await tx.run('update private.network_pauses set paused_until = now() where network = any($1::cidr[])', [
    networks,
  ])
  // Only what the pause held (due exactly at its end): a message in flight keeps its lease.
  await tx.run(
    `update private.mail_outbox o set run_at = now()
       from unnest($1::cidr[], $2::timestamptz[]) as r(network, held)
      where o.status = 'pending' and o.priority = 0 and o.kind = 'confirmation' and o.run_at = r.held
        and (select w.signup_network from public.waitlist w where w.id = o.waitlist_id) = r.network`,
    [networks, paused.map((row) => row.held)],
  )
  return paused.map(({ held: _, ...row }) => ({ ...row, network: shownNetwork(row.network) }))
}
