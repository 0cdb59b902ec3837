import type { Attempt, Outbox } from './outbox-queries'

/** What one attempt came to: sent; worth another try; or refused for good (a 5xx for the address). */
export type SendResult = { status: 'sent'; note?: string } | { status: 'retry' | 'permanent'; error: string }

/**
 * What one outbox (webhook deliveries, mail) supplies, as listmonk's manager takes a Store and a
 * Messenger: how to claim its due items and how to send one, plus what is its own in recording an
 * outcome. The pump decides when, times each attempt, records it, backs off and logs.
 */
export interface OutboxSender<Item extends Attempt> {
  /** How the logs name it, e.g. "Signup notifications". */
  name: string
  outbox: Outbox
  /** How the logs name one item: never by its address. */
  label(item: Item): string
  /** Claims up to `room` due items (claimWithLease); `slotInMs`: nothing may start before then. */
  claim(room: number, leaseMs: number): Promise<{ items: Item[]; slotInMs?: number }>
  /** Makes one attempt; never throws. `signal` aborts at the time limit or when the server stops. */
  send(item: Item, signal: AbortSignal): Promise<SendResult>
  /** Records a sent item (false: a later attempt already did). Default: markDone. */
  recordSent?(item: Item): Promise<boolean>
  /** Records a refusal for good and logs it. Absent: a refusal is retried as any failure is. */
  recordPermanent?(item: Item, error: string): Promise<void>
  /** What the owner can do about an item failed for good. Default: `deliveries --retry` sends it again. */
  afterFailing?(item: Item): string | undefined
  /** When the next pass is due, in ms (undefined: none pending). Default: the next pending item. */
  nextDueInMs?(): Promise<number | undefined>
}

/**
 * Runs one send with a signal that aborts after `ms` or when the server stops, and lets go of both
 * as soon as it is done. (AbortSignal.timeout keeps its timer, and AbortSignal.any its link to the
 * server's signal, alive for the whole time limit: at hundreds of messages a second that was tens
 * of MiB of old-generation garbage.)
 */
export async function withTimeLimit<T>(
  abandon: AbortSignal,
  ms: number,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController()
  const stop = () => controller.abort(abandon.reason)
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ms} ms`)), ms)
  abandon.addEventListener('abort', stop, { once: true })
  try {
    return await run(controller.signal)
  } finally {
    clearTimeout(timer)
    abandon.removeEventListener('abort', stop)
  }
}
