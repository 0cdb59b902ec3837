import { describe, expect, it } from 'vitest'
import { startTestServer } from '../../harness/test-server'
import { ConfigError, loadServerEnv } from '../../server/boot/env'
import { retryDelayMs, retryPolicy } from '../../server/outbox/backoff'
import { eventPayload, signupPayload } from '../../server/webhooks/payload'

const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`

function configError(env: Record<string, string>): string {
  try {
    loadServerEnv(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  return 'accepted'
}

describe('SIGNUP_WEBHOOK_URL and SIGNUP_WEBHOOK_SECRET', () => {
  it('accept an http(s) address and a whsec_ secret; unset or empty means no notifications', () => {
    const env = loadServerEnv({
      SIGNUP_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/x',
      SIGNUP_WEBHOOK_SECRET: SECRET,
    })
    expect(env.SIGNUP_WEBHOOK_URL).toBe('https://hooks.slack.com/services/T0/B0/x')
    expect(env.SIGNUP_WEBHOOK_SECRET).toBe(SECRET)
    expect(env.SIGNUP_WEBHOOK_TIMEOUT_MS).toBe(10_000)
    expect(env.SIGNUP_WEBHOOK_RETRY_BASE_MS).toBe(1_000)
    expect(env.SIGNUP_WEBHOOK_RETRY_FOR_MS).toBe(24 * 60 * 60 * 1_000)
    expect(
      loadServerEnv({ SIGNUP_WEBHOOK_URL: '', SIGNUP_WEBHOOK_SECRET: '' }).SIGNUP_WEBHOOK_URL,
    ).toBeUndefined()
  })

  it.each([
    ['ftp://hooks.example.com/in'],
    ['hooks.example.com/in'],
    ['javascript:alert(1)'],
    ['file:///etc/passwd'],
  ])('refuse %s as the webhook address, with the other bad variables in one message', (url) => {
    const message = configError({ SIGNUP_WEBHOOK_URL: url, SIGNUP_WEBHOOK_SECRET: 'hunter2', PORT: 'x' })
    expect(message).toContain('SIGNUP_WEBHOOK_URL: must be an http:// or https:// address')
    expect(message).toContain(
      'SIGNUP_WEBHOOK_SECRET: must be whsec_ followed by 24 to 64 random bytes in base64',
    )
    expect(message).toContain('PORT:')
    // The values may be secrets (a Slack webhook's path is one): never repeated back.
    expect(message).not.toContain('hunter2')
  })

  it('refuse an address with user:password@, which fetch would refuse on every attempt', () => {
    const message = configError({ SIGNUP_WEBHOOK_URL: 'https://user:hunter2@hooks.example.com/in' })
    expect(message).toContain('SIGNUP_WEBHOOK_URL: must not carry user:password@')
    expect(message).not.toContain('hunter2')
  })

  it.each([
    ['no prefix', Buffer.alloc(32).toString('base64')],
    ['too short', `whsec_${Buffer.alloc(8).toString('base64')}`],
    ['not base64', 'whsec_!!!!not-base64!!!!not-base64!!!!'],
  ])('refuse a secret with %s', (_label, secret) => {
    expect(configError({ SIGNUP_WEBHOOK_SECRET: secret })).toContain('SIGNUP_WEBHOOK_SECRET: must be whsec_')
  })

  it('the server refuses to start with an address that is not http or https, and says why', async () => {
    const started = startTestServer({ env: { SIGNUP_WEBHOOK_URL: 'ftp://hooks.example.com/in' } })
    await expect(started).rejects.toThrow(
      /Invalid configuration:\n.*SIGNUP_WEBHOOK_URL: must be an http:\/\/ or https:\/\/ address/,
    )
  })
})

describe('the retry schedule', () => {
  const policy = retryPolicy()
  it('first retry within about 2 s, then doubling, capped at 5 minutes', () => {
    const low = () => 0
    const high = () => 0.9999
    expect(retryDelayMs(policy, 1, low)).toBe(1_000)
    expect(retryDelayMs(policy, 1, high)).toBeLessThanOrEqual(1_200)
    expect(retryDelayMs(policy, 2, low)).toBe(2_000)
    expect(retryDelayMs(policy, 5, low)).toBe(16_000)
    expect(retryDelayMs(policy, 9, low)).toBe(256_000)
    expect(retryDelayMs(policy, 10, low)).toBe(300_000)
    expect(retryDelayMs(policy, 400, high)).toBeLessThanOrEqual(360_000)
  })

  it('keeps trying for 24 hours: well over a hundred attempts', () => {
    let elapsed = 0
    let attempts = 0
    while (elapsed + retryDelayMs(policy, attempts + 1, () => 0.5) <= policy.retryForMs) {
      attempts++
      elapsed += retryDelayMs(policy, attempts, () => 0.5)
    }
    expect(attempts).toBeGreaterThan(200)
    expect(policy.retryForMs).toBeGreaterThanOrEqual(24 * 60 * 60 * 1_000)
  })
})

describe('the payload', () => {
  it('carries the address and created_at, and a line Slack and Discord show as it is', () => {
    const payload = signupPayload(
      'a&b_c*d@example.com',
      '2024-11-23T09:15:42.123456Z',
      new Date('2024-11-23T09:15:43Z'),
    )
    expect(payload.data).toEqual({ email: 'a&b_c*d@example.com', created_at: '2024-11-23T09:15:42.123456Z' })
    expect(payload.type).toBe('waitlist.signup')
    expect(payload.timestamp).toBe('2024-11-23T09:15:43.000Z')
    // Slack reads &, < and > as markup, and _ and * as formatting outside inline code; Discord
    // reads _ and * as formatting and must mention nobody.
    expect(payload.text).toBe('New waitlist signup: `a&amp;b_c*d@example.com` (2024-11-23 09:15 UTC)')
    expect(payload.content).toBe('New waitlist signup: a&b\\_c\\*d@example.com (2024-11-23 09:15 UTC)')
    expect(payload.allowed_mentions).toEqual({ parse: [] })
  })

  it('with details, names the answers and the source, each stranger’s text escaped for its chat', () => {
    const entry = {
      email: 'ada@lab.org',
      createdAt: '2024-12-04T09:00:00.000000Z',
      occurredAt: '2024-12-04T10:30:00.000000Z',
      source: 'x*launch*',
      answers: { role: 'Research', organisation: 'Deep_Mind <!here> [click](https://evil.example)' },
    }
    const answered = eventPayload('entry.answered', entry, new Date('2024-12-04T10:30:01Z'))
    expect(answered.data).toEqual({
      email: 'ada@lab.org',
      created_at: '2024-12-04T09:00:00.000000Z',
      occurred_at: '2024-12-04T10:30:00.000000Z',
      source: 'x*launch*',
      answers: entry.answers,
    })
    expect(answered.text).toBe(
      '`ada@lab.org` (`Research, Deep_Mind &lt;!here&gt; [click](https://evil.example)`) answered, ' +
        'from `x*launch*` (2024-12-04 10:30 UTC)',
    )
    expect(answered.content).toBe(
      'ada@lab.org (Research, Deep\\_Mind \\<!here\\> \\[click\\](https://evil.example)) answered, ' +
        'from x\\*launch\\* (2024-12-04 10:30 UTC)',
    )
    // A long answer is cut in the chat's line, kept whole in the data.
    const long = { ...entry, source: null, answers: { use_case: 'a'.repeat(200) } }
    const confirmed = eventPayload('entry.confirmed', long, new Date())
    expect(confirmed.text).toBe(
      `Waitlist address confirmed: \`ada@lab.org\` (\`${'a'.repeat(59)}…\`) (2024-12-04 10:30 UTC)`,
    )
    expect(confirmed.data).toMatchObject({ source: null, answers: { use_case: 'a'.repeat(200) } })
    // Without details: the address and its dates, as before.
    const plain = eventPayload(
      'entry.answered',
      { ...entry, source: undefined, answers: undefined },
      new Date(),
    )
    expect(Object.keys(plain.data)).toEqual(['email', 'created_at', 'occurred_at'])
    expect(plain.text).toBe('`ada@lab.org` answered (2024-12-04 10:30 UTC)')
  })
})

describe('SIGNUP_WEBHOOK_DETAILS', () => {
  it('takes source, answers or both; unset or empty, none; an unknown name lists the valid ones', () => {
    expect(loadServerEnv({}).SIGNUP_WEBHOOK_DETAILS).toEqual([])
    expect(loadServerEnv({ SIGNUP_WEBHOOK_DETAILS: '' }).SIGNUP_WEBHOOK_DETAILS).toEqual([])
    expect(loadServerEnv({ SIGNUP_WEBHOOK_DETAILS: ' answers, source ' }).SIGNUP_WEBHOOK_DETAILS).toEqual([
      'source',
      'answers',
    ])
    expect(() => loadServerEnv({ SIGNUP_WEBHOOK_DETAILS: 'source,email' })).toThrow(
      'SIGNUP_WEBHOOK_DETAILS: "email": no such detail; choose from source, answers',
    )
  })
})
