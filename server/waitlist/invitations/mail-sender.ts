import { maskEmails } from '../../boot/log'
import type { MailTransport } from '../../mail/smtp-transport'
import type { SendHealthGate } from '../mail-events/send-health-gate'
import { retryDelayMs } from '../notifications/backoff'
import { type OutboxWorkerOptions, startOutboxWorker, type WakingJob } from '../outbox-pump'
import { composeMessage, type MessageContext } from './compose-message'
import {
  type ClaimedMail,
  claimMail,
  MAIL_CHANNEL,
  nextMailDueInMs,
  recordBounced,
  recordMailFailure,
  recordSent,
} from './mail-outbox'
import { nextSlotInMs } from './mail-pace'

export interface MailSenderOptions extends OutboxWorkerOptions {
  transport: MailTransport
  context: MessageContext
  /** MAIL_PER_MINUTE: for all servers on the database together; 0 for no cap. */
  perMinute: number
  /** Send health (ADR 045): asked before each claim; absent, sending never pauses. */
  health?: SendHealthGate
}

export interface MailSender {
  stop(): Promise<void>
}

/** Sends the mail outbox, each message at least once, on an OutboxPump beside the HTTP server. */
export async function startMailSender(options: MailSenderOptions): Promise<MailSender> {
  const pump = await startOutboxWorker(new MailJob(options), options)
  return {
    async stop() {
      await pump.stop()
      options.transport.close()
    },
  }
}

/**
 * Runs one send with a signal that aborts after `ms` or when the server stops, and lets go of both
 * as soon as it is done. (AbortSignal.timeout keeps its timer, and AbortSignal.any its link to the
 * server's signal, alive for the whole time limit: at hundreds of messages a second that was tens
 * of MiB of old-generation garbage.)
 */
async function withTimeLimit<T>(
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

/** How the logs name a message: its kind and Message-ID, never the address. */
const LABELS = { invitation: 'Invitation', confirmation: 'Confirmation', test: 'Test invitation' }
const label = (mail: ClaimedMail) => `${LABELS[mail.kind]} <${mail.uuid}>`

class MailJob implements WakingJob<ClaimedMail> {
  readonly name = 'Mail'
  readonly channel = MAIL_CHANNEL
  wakeIn: (ms: number) => void = () => {}
  private readonly leaseMs: number

  constructor(private readonly options: MailSenderOptions) {
    this.leaseMs = 3 * options.timeoutMs
  }

  async claim(room: number): Promise<ClaimedMail[]> {
    if (this.options.health && !(await this.options.health.allowsSending())) return []
    const { mail, slotInMs } = await claimMail(this.options.db, room, this.leaseMs, this.options.perMinute)
    if (slotInMs > 0) this.wakeIn(slotInMs)
    return mail
  }

  async nextDueInMs(): Promise<number | undefined> {
    if (this.options.health?.paused) return undefined // `deliveries --resume` wakes the sender
    const due = await nextMailDueInMs(this.options.db)
    if (due === undefined) return undefined
    return Math.max(due, await nextSlotInMs(this.options.db, this.options.perMinute))
  }

  async handle(mail: ClaimedMail, abandon: AbortSignal): Promise<void> {
    const { transport, context, timeoutMs } = this.options
    const message = composeMessage(context, { ...mail, queuedAt: new Date(mail.queuedAt) })
    const outcome = await withTimeLimit(abandon, timeoutMs, (signal) => transport.send(message, signal))
    try {
      if (outcome.status === 'sent') await this.recordSent(mail)
      else if (outcome.status === 'permanent') await this.recordBounced(mail, maskEmails(outcome.error))
      else await this.recordFailed(mail, maskEmails(outcome.error))
    } catch (error) {
      // The lease runs out and the message falls due again: at least once, still.
      this.options.log.error(`${label(mail)}: could not record the outcome`, error)
    }
  }

  private async recordSent(mail: ClaimedMail): Promise<void> {
    const recorded = await recordSent(this.options.db, mail)
    this.options.log.info(
      `${label(mail)} sent (attempt ${mail.attempt})${recorded ? '' : ', already recorded'}`,
    )
  }

  private async recordBounced(mail: ClaimedMail, error: string): Promise<void> {
    await recordBounced(this.options.db, mail, error)
    this.options.log.error(
      `${label(mail)} bounced: ${error}; the entry is marked bounced and gets no more mail`,
    )
  }

  private async recordFailed(mail: ClaimedMail, error: string): Promise<void> {
    const { db, log, retry } = this.options
    const waitMs = retryDelayMs(retry, mail.attempt)
    const status = await recordMailFailure(db, mail, error, waitMs, retry.retryForMs)
    if (status === 'failed') {
      log.error(
        `${label(mail)} failed for good after ${mail.attempt} attempts: ${error} ` +
          '(npm run waitlist -- deliveries --retry sends it again)',
      )
      return
    }
    log.error(
      `${label(mail)} attempt ${mail.attempt} failed: ${error}; next in ${Math.round(waitMs / 100) / 10} s`,
    )
    this.wakeIn(waitMs)
  }
}
