/**
 * What the lab sends at the owner's word, and what became of it (ADR 113): who `invite` may pick,
 * an invitation's preview and its batch, a test send, a confirmation sent again; then a batch's
 * progress, each lane's send health and its resumption, the mail and webhooks still undelivered or
 * failed (retried on request), and the addresses refused since the last batch; the deliverability
 * preflight the running server answers, and whether it clears a batch (ADR 120).
 */
export { type PreviewFallback, renderPreview } from '../mail/messages/message-preview'
export { askPreflight, clearBatch, heldWords, skippedRecord } from '../mail/preflight/preflight-gate'
export { type CheckLine, formatLine, holding, passes } from '../mail/preflight/preflight-lines'
export { lastRun, type PreflightRun } from '../mail/preflight/preflight-runs'
export {
  type BatchProgress,
  batchProgress,
  listUndeliveredMail,
  retryFailedMail,
} from '../mail/queue/mail-report'
export { readMailSettings } from '../mail/queue/mail-settings'
export type { PausedNetwork } from '../mail/queue/network-health'
export {
  HEALTH_MIN_SENT,
  HEALTH_WINDOW,
  type LaneHealth,
  readSendReport,
  resumeSending,
  type SendHealth,
} from '../mail/queue/send-health'
export { refusalsSinceLastBatch } from '../waitlist/admin/refusal-report'
export { confirmAgain } from '../waitlist/confirmations'
export { invitable } from '../waitlist/entry-status'
export {
  type InviteChoice,
  type InviteOutcome,
  type InvitePreview,
  type InviteRequest,
  previewInvite,
  previewMessage,
  queueInvite,
  type Refusal,
  sendTest,
} from '../waitlist/invite/invite-service'
export { forgotten, listUndeliveredWebhooks, retryFailedWebhooks } from '../webhooks/delivery-queue'
export { webhooksEnabled } from '../webhooks/webhook-events'
