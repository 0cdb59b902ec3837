import { type PumpOptions, startOutbox } from '../../outbox/outbox-pump'
import { OUTBOXES } from '../../outbox/outbox-queries'
import type { OutboxSender } from '../../outbox/outbox-sender'
import { composeMessage, type MessageContext } from '../messages/compose-message'
import type { MailTransport } from '../smtp-transport'
import { nextSlotInMs } from './mail-pace'
import {
  type AddressRefused,
  type ClaimedMail,
  claimMail,
  nextMailDueIn,
  recordBounced,
  recordSent,
} from './mail-queue'
import type { SendHealthGate } from './send-health'
import { LANES } from './send-health'

export interface MailSenderOptions extends PumpOptions {
  transport: MailTransport
  context: MessageContext
  /** MAIL_PER_MINUTE: for all servers on the database together; 0 for no cap. */
  perMinute: number
  /** Send health (ADR 045): asked before each claim which lanes may send; absent, sending never pauses. */
  health?: SendHealthGate
  /** What the list does with an entry whose address a 5xx refused (the waitlist's bounce). */
  refused: AddressRefused
}

export interface MailSender {
  stop(): Promise<void>
}

/** How the logs name a message: its kind and Message-ID, never the address. */
const LABELS = { invitation: 'Invitation', confirmation: 'Confirmation', test: 'Test invitation' }

/**
 * Sends the mail outbox, each message at least once, on the outbox pump beside the HTTP server.
 * What is mail's own: the two lanes at the shared pace (mail-queue.ts, mail-pace.ts), the send
 * health asked before each claim (a lane it paused is left out), and a bounce, which marks the entry.
 */
export async function startMailSender(options: MailSenderOptions): Promise<MailSender> {
  const { db, log, transport, context, perMinute, health, refused } = options
  const sender: OutboxSender<ClaimedMail> = {
    name: 'Mail',
    outbox: OUTBOXES.mail,
    label: (mail) => `${LABELS[mail.kind]} <${mail.uuid}>`,
    async claim(room, leaseMs) {
      return claimMail(db, room, leaseMs, perMinute, health ? await health.openLanes() : LANES)
    },
    async nextDueInMs() {
      // A paused lane's messages wait for `deliveries --resume`, which wakes the sender.
      const due = await nextMailDueIn(db, health?.open ?? LANES)
      if (due === undefined) return undefined
      return Math.max(due, await nextSlotInMs(db, perMinute))
    },
    async send(mail, signal) {
      const message = composeMessage(context, { ...mail, queuedAt: new Date(mail.queuedAt) })
      const outcome = await transport.send(message, signal)
      return outcome.status === 'transient' ? { status: 'retry', error: outcome.error } : outcome
    },
    recordSent: (mail) => recordSent(db, mail),
    async recordPermanent(mail, error) {
      await recordBounced(db, mail, error, refused)
      log.error(`${sender.label(mail)} bounced: ${error}; the entry is marked bounced and gets no more mail`)
    },
  }
  const pump = await startOutbox(sender, options)
  return {
    async stop() {
      await pump.stop()
      transport.close()
    },
  }
}
