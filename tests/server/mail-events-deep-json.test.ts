import { request } from 'node:http'
import { beforeEach, describe, expect, it } from 'vitest'
import { MAX_EVENT_BODY } from '../../server/http/mail-events-app'
import { pool, rssKiB } from '../reliability/support'
import { fileServer } from '../support/file-server'

/**
 * SES and Mailgun carry their signature inside the body, so the body is read before anyone is
 * known. A stranger's megabyte of nested brackets must cost the server neither memory nor time:
 * the real live.server, its resident memory read from /proc while the bodies arrive, /healthz timed
 * beside them.
 */
const BODIES = 60
const AT_ONCE = 8
const MIB = 1024 * 1024

const live = fileServer({
  env: {
    MAIL_EVENTS_SES_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:ses-events',
    MAIL_EVENTS_MAILGUN_KEY: 'mailgun-signing-key-0123456789',
    // Each test posts from an address of its own, so no test meets the route's rate limit.
    TRUST_PROXY_HEADER: 'X-Forwarded-For',
  },
})

/**
 * POSTs on a connection of its own (never the one /healthz is timed on), with a Content-Length or,
 * `chunked`, without one: the status, or 'closed' when the server answered and closed before
 * taking the whole body, as it may for one too large.
 */
let client = 0
beforeEach(() => {
  client++
})

/** POSTs `body` on a connection of its own (chunked: in two writes): its status, or 'closed'. */
function postRaw(provider: string, body: string, chunked = false): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    const sent = request(
      `${live.server.url}/mail-events/${provider}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${client}` },
      },
      (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      },
    )
    sent.on('error', () => resolve('closed'))
    if (chunked) sent.write(body.slice(0, 1024))
    sent.end(chunked ? body.slice(1024) : body)
  })
}

/** Times GET /healthz over and over, and samples the server's RSS, until `done` settles. */
async function watch(done: Promise<unknown>): Promise<{ slowestMs: number; peakKiB: number }> {
  let finished = false
  void done.finally(() => {
    finished = true
  })
  let slowestMs = 0
  let peakKiB = rssKiB(live.server)
  const sampler = setInterval(() => {
    peakKiB = Math.max(peakKiB, rssKiB(live.server))
  }, 20)
  try {
    while (!finished) {
      const started = performance.now()
      const response = await fetch(`${live.server.url}/healthz`)
      await response.arrayBuffer()
      slowestMs = Math.max(slowestMs, performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    clearInterval(sampler)
  }
  return { slowestMs, peakKiB: Math.max(peakKiB, rssKiB(live.server)) }
}

/** Sends the bodies, AT_ONCE at a time, while /healthz is timed and RSS sampled; what they got. */
async function flood(bodies: { provider: string; body: string; chunked?: boolean }[]) {
  // Warm: the routes and the health check have run once.
  for (const provider of ['ses', 'mailgun']) expect(await postRaw(provider, '{}')).toBeGreaterThanOrEqual(400)
  await (await fetch(`${live.server.url}/healthz`)).arrayBuffer()
  const baseKiB = rssKiB(live.server)
  const statuses = pool(
    AT_ONCE,
    bodies.map(
      ({ provider, body, chunked }) =>
        () =>
          postRaw(provider, body, chunked),
    ),
  )
  const { slowestMs, peakKiB } = await watch(statuses)
  const grownMiB = (peakKiB - baseKiB) / 1024
  return { statuses: await statuses, slowestMs, grownMiB, baseKiB, peakKiB }
}

describe('unauthenticated deep JSON on /mail-events/ses and /mailgun', () => {
  it('sixty 1 MiB bodies of nested brackets, 8 at a time: RSS within +64 MiB, /healthz under 500 ms', async () => {
    const deep = '['.repeat(MIB)
    const { statuses, slowestMs, grownMiB, baseKiB, peakKiB } = await flood(
      Array.from({ length: BODIES }, (_, i) => ({
        provider: i % 2 ? 'mailgun' : 'ses',
        body: deep,
        chunked: i % 4 >= 2,
      })),
    )
    console.info(
      `deep JSON, 1 MiB: RSS ${(baseKiB / 1024).toFixed(0)} → peak ${(peakKiB / 1024).toFixed(0)} MiB (+${grownMiB.toFixed(0)}), slowest /healthz ${slowestMs.toFixed(0)} ms`,
    )
    for (const status of statuses) if (status !== 'closed') expect(status).toBeGreaterThanOrEqual(400)
    expect(grownMiB).toBeLessThanOrEqual(64)
    expect(slowestMs).toBeLessThan(500)
  }, 120_000)

  it('bodies of nested brackets as large as each route takes are refused for their depth, within the same bounds', async () => {
    const bodies = Array.from({ length: BODIES }, (_, i) => {
      const provider = i % 2 ? 'mailgun' : 'ses'
      return { provider, body: '['.repeat(MAX_EVENT_BODY[provider as 'ses' | 'mailgun']) }
    })
    const { statuses, slowestMs, grownMiB, baseKiB, peakKiB } = await flood(bodies)
    console.info(
      `deep JSON, at each limit: RSS ${(baseKiB / 1024).toFixed(0)} → peak ${(peakKiB / 1024).toFixed(0)} MiB (+${grownMiB.toFixed(0)}), slowest /healthz ${slowestMs.toFixed(0)} ms`,
    )
    expect(new Set(statuses)).toEqual(new Set([400]))
    expect(live.server.output()).toContain(
      'Mail events from ses refused: the JSON nests deeper than 64 levels',
    )
    expect(live.server.output()).toContain(
      'Mail events from mailgun refused: the JSON nests deeper than 64 levels',
    )
    expect(grownMiB).toBeLessThanOrEqual(64)
    expect(slowestMs).toBeLessThan(500)
  }, 120_000)

  it("a body over its route's limit is 413: 512 KiB for SES, 64 KiB for Mailgun (docs/mail-setup.md)", async () => {
    expect(await postRaw('ses', '['.repeat(512 * 1024 + 1))).toBe(413)
    expect(await postRaw('mailgun', '['.repeat(64 * 1024 + 1))).toBe(413)
    expect(await postRaw('mailgun', '['.repeat(64 * 1024 + 1), true)).not.toBe(200)
  })
})
