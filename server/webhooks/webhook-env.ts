import * as z from 'zod'
import { type EnvOf, optional } from '../base/optional-env'
import { WEBHOOK_EVENTS, type WebhookEvent } from './delivery-queue'
import { isWebhookDetail, WEBHOOK_DETAILS, type WebhookDetail } from './webhook-details'

/** Standard Webhooks secrets are whsec_ and 24 to 64 random bytes in base64 (standardwebhooks.com). */
function isWebhookSecret(value: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value)
  if (!match?.[1] || match[1].length % 4 !== 0) return false
  const bytes = Buffer.from(match[1], 'base64').length
  return bytes >= 24 && bytes <= 64
}

const isWebhookEvent = (name: string): name is WebhookEvent =>
  (WEBHOOK_EVENTS as readonly string[]).includes(name)

/** A comma list of event types, each one the webhook knows; unset, all of them. */
const eventList = optional(z.string()).transform((value, context): WebhookEvent[] => {
  if (value === undefined) return [...WEBHOOK_EVENTS]
  const names = [...new Set(value.split(',').map((name) => name.trim()))].filter((name) => name !== '')
  const unknown = names.filter((name) => !isWebhookEvent(name))
  const valid = `choose from ${WEBHOOK_EVENTS.join(', ')}`
  if (unknown.length > 0)
    context.addIssue({
      code: 'custom',
      message: `${unknown.map((name) => `"${name}"`).join(', ')}: no such event type; ${valid}`,
    })
  else if (names.length === 0) context.addIssue({ code: 'custom', message: `names no event type; ${valid}` })
  return names.filter(isWebhookEvent)
})

/** A comma list of details; unset or empty, none (today's payload: the address and its dates). */
const detailList = optional(z.string()).transform((value, context): WebhookDetail[] => {
  const names = [...new Set((value ?? '').split(',').map((name) => name.trim()))].filter(
    (name) => name !== '',
  )
  const unknown = names.filter((name) => !isWebhookDetail(name))
  if (unknown.length > 0)
    context.addIssue({
      code: 'custom',
      message: `${unknown.map((name) => `"${name}"`).join(', ')}: no such detail; choose from ${WEBHOOK_DETAILS.join(', ')}`,
    })
  return WEBHOOK_DETAILS.filter((detail) => names.includes(detail))
})

/** The signup notification variables, merged into the server's env schema. */
export const webhookEnv = {
  /** Every new signup is POSTed here as JSON (Standard Webhooks headers), at least once. */
  SIGNUP_WEBHOOK_URL: optional(
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' })
      // fetch() refuses URLs with credentials; every attempt would fail, so refuse at start-up.
      .refine((value) => {
        if (!URL.canParse(value)) return true // already reported above
        const url = new URL(value)
        return url.username === '' && url.password === ''
      }, 'must not carry user:password@ (put the token in the path, or sign with SIGNUP_WEBHOOK_SECRET)'),
  ),
  /** Signs each request (webhook-signature); whsec_ followed by 24 to 64 bytes in base64. */
  SIGNUP_WEBHOOK_SECRET: optional(
    z
      .string()
      .refine(
        isWebhookSecret,
        'must be whsec_ followed by 24 to 64 random bytes in base64, e.g. whsec_$(openssl rand -base64 32)',
      ),
  ),
  /** The event types the webhook receives (comma-separated); unset, every one. Others are not queued. */
  SIGNUP_WEBHOOK_EVENTS: eventList,
  /**
   * `source`, `answers` or both: added to every event about an entry (its source, its kept answers,
   * never an agent's proposed ones). Personal data the chat would then hold: off unless chosen.
   */
  SIGNUP_WEBHOOK_DETAILS: detailList,
  /** How long one attempt may take, answer included. */
  SIGNUP_WEBHOOK_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(120_000)).transform(
    (v) => v ?? 10_000,
  ),
  /** The wait after the first failed attempt; each later wait doubles, up to 300 times this. */
  SIGNUP_WEBHOOK_RETRY_BASE_MS: optional(z.coerce.number().int().min(10)).transform((v) => v ?? 1_000),
  /** How long a delivery is retried before it is marked failed. */
  SIGNUP_WEBHOOK_RETRY_FOR_MS: optional(z.coerce.number().int().min(0)).transform(
    (v) => v ?? 24 * 60 * 60 * 1_000,
  ),
}

/** What the webhook's start-up reads of the env. */
export type WebhookEnv = EnvOf<typeof webhookEnv>
