/**
 * What SIGNUP_WEBHOOK_DETAILS may add to every event about an entry: its source, and the answers
 * the person kept (never an agent's proposed ones). Personal data a chat would then hold, so none
 * unless the lab chooses them (docs/notifications.md).
 */
export const WEBHOOK_DETAILS = ['source', 'answers'] as const

export type WebhookDetail = (typeof WEBHOOK_DETAILS)[number]

export const isWebhookDetail = (name: string): name is WebhookDetail =>
  (WEBHOOK_DETAILS as readonly string[]).includes(name)
