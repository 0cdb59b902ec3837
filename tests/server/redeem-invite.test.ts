import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { SignJWT } from 'jose'
import { Webhook } from 'standardwebhooks'
import { describe, expect } from 'vitest'
import WebSocket from 'ws'
import { runCli } from '../../harness/waitlist-cli'
import type { Database } from '../../server/db/database'
import { linkKeys } from '../../server/mail/messages/link-seals'
import { inviteNamed, queueTestInvitation } from '../../server/waitlist/invite/invitations'
import { REDEEM_REFUSALS } from '../../server/waitlist/redeem-invite'
import { mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import type { WebhookReceiver } from '../support/webhook-receiver'

/**
 * `supabase.rpc('redeem_invite', { code })` (issue 43, item 4): the beta product tells the
 * waitlist who came. Through the real server, supabase-js, real invitations sent to a real SMTP
 * server (their codes read from the mail), the CLI's `remove`, and a real webhook receiver.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MESSAGE_DOMAIN = 'tessel-labs.example'
const SECRET = `whsec_${Buffer.alloc(32, 'redeem-invite-events').toString('base64')}`
// The one client address whose bucket the rate-limit test spends (TRUST_PROXY_HEADER below).
const LIMITED_CLIENT = '203.0.113.43'
const BURST = 5

let mail: MailTestServer
let db: Database
let receiver: WebhookReceiver
let service: SupabaseClient
let anon: SupabaseClient

const it = mailTest(
  {
    MAIL_PER_MINUTE: '0',
    SIGNUP_WEBHOOK_SECRET: SECRET,
    SIGNUP_WEBHOOK_EVENTS: 'entry.joined',
    RATE_LIMIT_PER_MINUTE: '1',
    RATE_LIMIT_BURST: String(BURST),
    TRUST_PROXY_HEADER: 'x-forwarded-for',
  },
  { webhook: true },
)

// The file's helpers and its two supabase-js clients read these, set once from the fixtures.
it.beforeAll(async ({ mail: started, receiver: listening }) => {
  mail = started
  receiver = listening
  db = mail.database.db
  service = client(mail.server.serviceKey)
  anon = client(mail.server.anonKey)
})

function client(key: string): SupabaseClient {
  return createClient(mail.server.url, key, {
    realtime: { transport: WebSocket as never },
    auth: { persistSession: false, autoRefreshToken: false },
  })
}

/** The invite code in the `nth` message (from 1) the SMTP server took for `email`. */
async function codeMailedTo(email: string, nth: number): Promise<string> {
  const { sink } = mail
  await sink.waitFor(() => sink.countFor(email) >= nth, `message ${nth} to ${email}`)
  const received = sink.received.filter((message) => message.to.includes(email))[nth - 1]
  if (!received) throw new Error(`no message ${nth} to ${email}`)
  const text = (await sink.parse(received)).text ?? ''
  const code = /[?&]invite=([A-Za-z0-9_-]{50})\b/.exec(text)?.[1]
  if (!code) throw new Error(`no invite code in the message to ${email}`)
  return code
}

/** Lists `email`, has the running server invite it as `invite EMAIL` does, and returns the mailed code. */
async function invitedCode(email: string): Promise<string> {
  await db.query('insert into public.waitlist (email) values ($1)', [email])
  const { messageIds } = await inviteNamed(db, [email], { resend: false, messageDomain: MESSAGE_DOMAIN })
  expect(messageIds).toHaveLength(1)
  return codeMailedTo(email, 1)
}

/** Everything a redeem may change about an entry: a refused one must leave all of it as it was. */
async function stateOf(email: string) {
  return db.query(
    `select coalesce(s.status, 'waiting') as status, s.joined_at::text,
            (select array_agg(o.redeemed_at::text order by o.id) from private.mail_outbox o where o.waitlist_id = w.id) as redeemed,
            (select count(*)::int from private.entry_events e where e.waitlist_id = w.id) as events,
            (select count(*)::int from private.webhook_deliveries d where d.waitlist_id = w.id) as deliveries
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where w.email = $1`,
    [email],
  )
}

const entryDates = async (email: string) =>
  (
    await db.query<{ invited_at: string; joined_at: string | null }>(
      `select to_char(s.invited_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as invited_at,
              to_char(s.joined_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as joined_at
         from public.waitlist w join private.entry_status s on s.waitlist_id = w.id where w.email = $1`,
      [email],
    )
  )[0]

/** The code with one character changed, as a hand or a mangling mail client might. */
const tamper = (code: string) => `${code.slice(0, 20)}${code[20] === 'A' ? 'B' : 'A'}${code.slice(21)}`

const rpcUrl = (name: string) => `${mail.server.url}/rest/v1/rpc/${name}`
const keyHeaders = (key: string) => ({ apikey: key, Authorization: `Bearer ${key}` })

async function expectRefusal(
  answer: { status: number; data: unknown; error: { code: string; message: string } | null },
  status: number,
  code: string,
  message: string | RegExp,
) {
  expect(answer.status).toBe(status)
  expect(answer.data).toBeNull()
  expect(answer.error?.code).toBe(code)
  if (typeof message === 'string') expect(answer.error?.message).toBe(message)
  else expect(answer.error?.message).toMatch(message)
}

describe('redeem_invite with the service_role key, through supabase-js', () => {
  it('the first redeem answers who and when, makes the entry joined and sends entry.joined; the second changes nothing', async () => {
    const email = 'ada.redeems@example.com'
    const code = await invitedCode(email)
    const { data, error, status } = await service.rpc('redeem_invite', { code })
    expect(error).toBeNull()
    expect(status).toBe(200)
    const dates = await entryDates(email)
    expect(dates?.joined_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
    expect(data).toEqual({ email, invited_at: dates?.invited_at, joined_at: dates?.joined_at, first: true })
    const joined = await stateOf(email)
    expect(joined).toMatchObject([{ status: 'joined', deliveries: 1 }])

    const again = await service.rpc('redeem_invite', { code })
    expect(again).toMatchObject({ status: 200, error: null })
    expect(again.data).toEqual({ ...data, first: false })
    expect(await stateOf(email), 'the second redeem changed nothing').toEqual(joined)
  })

  it('entry.joined reaches the webhook receiver once, signed, with the address and when', async () => {
    const email = 'bo.webhook@example.com'
    const code = await invitedCode(email)
    const { data } = await service.rpc('redeem_invite', { code })
    await service.rpc('redeem_invite', { code })
    const forBo = () => receiver.delivered().filter(({ body }) => JSON.stringify(body).includes(email))
    await receiver.waitFor(() => forBo().length >= 1, 'the entry.joined delivery')
    const request = receiver.requests.find((received) => received.body.includes(email))
    const body = new Webhook(SECRET).verify(request?.body ?? '', request?.headers as Record<string, string>)
    expect(body).toMatchObject({
      type: 'entry.joined',
      data: { email, created_at: expect.stringMatching(/Z$/), occurred_at: expect.any(String) },
      text: expect.stringMatching(
        /^Joined the beta: `bo\.webhook@example\.com` \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/,
      ),
      content: expect.stringMatching(/^Joined the beta: bo\.webhook@example\.com \(/),
      allowed_mentions: { parse: [] },
    })
    // The event happened when the entry joined: the same instant the call answered.
    expect((body as { data: { occurred_at: string } }).data.occurred_at).toBe(
      (data as { joined_at: string }).joined_at,
    )
    // The second redeem queued nothing: the one delivery is all there will be.
    expect(await stateOf(email)).toMatchObject([{ deliveries: 1 }])
    expect(forBo()).toHaveLength(1)
  })

  it('redeems of one code at once: exactly one is first, and one entry.joined is queued', async () => {
    const email = 'cal.twice@example.com'
    const code = await invitedCode(email)
    const answers = await Promise.all(Array.from({ length: 6 }, () => service.rpc('redeem_invite', { code })))
    expect(answers.map(({ status }) => status)).toEqual(Array(6).fill(200))
    expect(answers.filter(({ data }) => (data as { first: boolean }).first)).toHaveLength(1)
    expect(new Set(answers.map(({ data }) => (data as { joined_at: string }).joined_at)).size).toBe(1)
    expect(await stateOf(email)).toMatchObject([{ status: 'joined', events: 2, deliveries: 1 }])
  })

  it('after invite --resend the earlier code is refused, 410 PT410, and the newest redeems as before', async () => {
    const email = 'cy.resent@example.com'
    const firstCode = await invitedCode(email)
    await inviteNamed(db, [email], { resend: true, messageDomain: MESSAGE_DOMAIN })
    const secondCode = await codeMailedTo(email, 2)
    expect(secondCode).not.toBe(firstCode)
    const before = await stateOf(email)
    const replaced = await service.rpc('redeem_invite', { code: firstCode })
    await expectRefusal(replaced, 410, 'PT410', REDEEM_REFUSALS.replaced)
    expect(replaced.error?.message).toContain('replaced by a later invitation')
    expect((replaced.error as { hint: string } | null)?.hint).toContain('latest invitation')
    expect(await stateOf(email), 'the replaced code changed nothing').toEqual(before)
    const joined = await service.rpc('redeem_invite', { code: secondCode })
    expect(joined).toMatchObject({ status: 200, error: null, data: { email, first: true } })
    // Joined by the newest, the earlier code still admits nobody; the newest answers again.
    await expectRefusal(
      await service.rpc('redeem_invite', { code: firstCode }),
      410,
      'PT410',
      REDEEM_REFUSALS.replaced,
    )
    const again = await service.rpc('redeem_invite', { code: secondCode })
    expect(again.data).toEqual({ ...(joined.data as object), first: false })
    expect(await stateOf(email)).toMatchObject([{ status: 'joined', deliveries: 1 }])
  })
})

describe('redeem_invite refuses, in PostgREST’s shape, and changes nothing', () => {
  it('the anon key: 401 42501, as PostgREST says for anon; a signed-in user’s key: 403', async () => {
    const email = 'dee.anon@example.com'
    const code = await invitedCode(email)
    const before = await stateOf(email)
    const refused = await anon.rpc('redeem_invite', { code })
    await expectRefusal(refused, 401, '42501', 'permission denied for function redeem_invite')
    const raw = await fetch(rpcUrl('redeem_invite'), {
      method: 'POST',
      headers: { ...keyHeaders(mail.server.anonKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    })
    expect(raw.headers.get('www-authenticate')).toBe('Bearer')
    expect(Object.keys(await raw.json())).toEqual(['code', 'details', 'hint', 'message'])
    const userKey = await new SignJWT({ role: 'authenticated', sub: 'someone' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(mail.server.secret)
    await expectRefusal(await client(userKey).rpc('redeem_invite', { code }), 403, '42501', /redeem_invite/)
    expect(await stateOf(email)).toEqual(before)
  })

  it('a tampered code: 400 PT400 in words the beta product can log', async () => {
    const email = 'eve.tampered@example.com'
    const code = await invitedCode(email)
    const before = await stateOf(email)
    const tampered = tamper(code)
    for (const bad of [tampered, code.slice(0, 49), `${code}A`, ''])
      await expectRefusal(
        await service.rpc('redeem_invite', { code: bad }),
        400,
        'PT400',
        REDEEM_REFUSALS.invalid,
      )
    // A code made with another installation's key is as foreign as a changed one.
    expect(linkKeys(new Uint8Array(32)).inviteCode.equals(linkKeys(mail.server.secret).inviteCode)).toBe(
      false,
    )
    expect(await stateOf(email)).toEqual(before)
  })

  it('a test send’s code: 422 PT422, and the address listed stays as it was', async () => {
    const email = 'fay.tester@example.com'
    const code = await invitedCode(email)
    const before = await stateOf(email)
    expect(await queueTestInvitation(db, email)).toMatchObject({ queued: expect.any(String) })
    const testCode = await codeMailedTo(email, 2)
    expect(testCode).not.toBe(code)
    const refused = await service.rpc('redeem_invite', { code: testCode })
    await expectRefusal(refused, 422, 'PT422', REDEEM_REFUSALS.test)
    expect((refused.error as { hint: string } | null)?.hint).toContain('invite --test')
    expect(await stateOf(email)).toEqual(before)
  })

  it('the code of an entry `remove` erased: 404 PT404, and no entry comes back', async () => {
    const email = 'gus.erased@example.com'
    const code = await invitedCode(email)
    const removed = await runCli(mail.server.env, 'remove', email)
    expect(removed).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`Removed ${email} from the waitlist.`),
    })
    await expectRefusal(await service.rpc('redeem_invite', { code }), 404, 'PT404', REDEEM_REFUSALS.unknown)
    expect(await stateOf(email)).toEqual([])
  })

  it('a missing code or other argument names: PostgREST’s 404 PGRST202; a code that is not text: 400', async () => {
    const email = 'hal.args@example.com'
    const code = await invitedCode(email)
    const before = await stateOf(email)
    const missing = await service.rpc('redeem_invite', {})
    await expectRefusal(
      missing,
      404,
      'PGRST202',
      'Could not find the function public.redeem_invite without parameters in the schema cache',
    )
    expect(missing.error).toMatchObject({
      details:
        'Searched for the function public.redeem_invite without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.redeem_invite(code)',
    })
    const extra = await service.rpc('redeem_invite', { code, token: code })
    await expectRefusal(
      extra,
      404,
      'PGRST202',
      'Could not find the function public.redeem_invite(code, token) in the schema cache',
    )
    for (const notText of [42, null, { code }, [code]])
      await expectRefusal(
        await service.rpc('redeem_invite', { code: notText }),
        400,
        'PT400',
        REDEEM_REFUSALS.invalid,
      )
    const notJson = await fetch(rpcUrl('redeem_invite'), {
      method: 'POST',
      headers: { ...keyHeaders(mail.server.serviceKey), 'Content-Type': 'application/json' },
      body: `{"code": "${code}"`,
    })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toMatchObject({ code: 'PGRST102', message: 'Empty or invalid json' })
    expect(await stateOf(email)).toEqual(before)
  })

  it('another function: 404 PGRST202 for every key; GET: 405 25006; PATCH: 405 PGRST117; the room’s other checks', async () => {
    const email = 'ivy.methods@example.com'
    const code = await invitedCode(email)
    const before = await stateOf(email)
    for (const key of [mail.server.serviceKey, mail.server.anonKey])
      await expectRefusal(
        await client(key).rpc('delete_everything', { code }),
        404,
        'PGRST202',
        'Could not find the function public.delete_everything(code) in the schema cache',
      )
    const read = await service.rpc('redeem_invite', { code }, { get: true })
    await expectRefusal(read, 405, '25006', 'cannot execute UPDATE in a read-only transaction')
    expect((read.error as { hint: string } | null)?.hint).toContain('POST')
    await expectRefusal(
      await anon.rpc('redeem_invite', { code }, { get: true }),
      401,
      '42501',
      /redeem_invite/,
    )
    const patch = await fetch(rpcUrl('redeem_invite'), {
      method: 'PATCH',
      headers: { ...keyHeaders(mail.server.serviceKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    })
    expect(patch.status).toBe(405)
    expect(await patch.json()).toMatchObject({ code: 'PGRST117', message: 'Unsupported HTTP method: PATCH' })
    const post = (query: string, headers: Record<string, string> = {}) =>
      fetch(`${rpcUrl('redeem_invite')}${query}`, {
        method: 'POST',
        headers: { ...keyHeaders(mail.server.serviceKey), 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ code }),
      }).then(async (answer) => [answer.status, ((await answer.json()) as { code: string }).code])
    expect(await post('?select=email')).toEqual([400, 'PGRST100'])
    expect(await post('', { Accept: 'text/csv' })).toEqual([406, 'PGRST107'])
    expect(await post('', { 'Content-Profile': 'private' })).toEqual([406, 'PGRST106'])
    const noKey = await fetch(rpcUrl('redeem_invite'), { method: 'POST', body: JSON.stringify({ code }) })
    expect(noKey.status).toBe(401)
    expect(await noKey.json()).toMatchObject({ code: 'PGRST302' })
    expect(await stateOf(email)).toEqual(before)
  })

  it('a body over 16 KiB: 413 before the database is asked', async () => {
    const email = 'jo.large@example.com'
    const code = await invitedCode(email)
    const before = await stateOf(email)
    const large = await fetch(rpcUrl('redeem_invite'), {
      method: 'POST',
      headers: { ...keyHeaders(mail.server.serviceKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ code, padding: 'x'.repeat(17 * 1024) }),
    })
    expect(large.status).toBe(413)
    expect(await large.json()).toMatchObject({ code: 'PGRST413' })
    expect(await stateOf(email)).toEqual(before)
  })
})

describe('the rate limit', () => {
  it('never counts the service_role key’s redeems; the anon key’s calls spend the address’s tokens', async () => {
    const call = (key: string) =>
      fetch(rpcUrl('redeem_invite'), {
        method: 'POST',
        headers: {
          ...keyHeaders(key),
          'Content-Type': 'application/json',
          'X-Forwarded-For': LIMITED_CLIENT,
        },
        body: JSON.stringify({ code: 'x' }),
      }).then((answer) => answer.status)
    const owner: number[] = []
    for (let i = 0; i < BURST * 3; i++) owner.push(await call(mail.server.serviceKey))
    expect(new Set(owner)).toEqual(new Set([400]))
    const strangers: number[] = []
    for (let i = 0; i <= BURST; i++) strangers.push(await call(mail.server.anonKey))
    expect(strangers).toEqual([...Array(BURST).fill(401), 429])
    expect(await call(mail.server.serviceKey), 'the owner still gets through').toBe(400)
  })
})

describe('the invitation guide’s code, run as a beta product runs it', () => {
  const exec = promisify(execFile)
  /** Runs a snippet as an ES module from the repository (so it finds its packages) with `tail` after it. */
  async function runSnippet(snippet: string, tail: string, env: Record<string, string>): Promise<unknown> {
    // Node 22 has WebSocket built in, which supabase-js needs; this gives Node 20 the same.
    const prelude = "import WebSocket from 'ws'\nglobalThis.WebSocket ??= WebSocket\n"
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', prelude + snippet + tail], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    })
    return JSON.parse(stdout)
  }

  it('the offline check reads the code; "Know who joined" redeems it with supabase-js', async () => {
    const guide = await readFile(new URL('../../docs/invitations.md', import.meta.url), 'utf8')
    const offline = /## The invite code[\s\S]*?```js\n([\s\S]*?)```/.exec(guide)?.[1] ?? ''
    const redeem = /## Know who joined[\s\S]*?```js\n([\s\S]*?)```/.exec(guide)?.[1] ?? ''
    expect(offline).toContain('checkInviteCode')
    expect(redeem).toContain("rpc('redeem_invite'")
    const email = 'kim.guide@example.com'
    const code = await invitedCode(email)
    const [invitation] = await db.query<{ uuid: string }>(
      `select o.uuid::text from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id where w.email = $1`,
      [email],
    )
    const keysOut = (await runCli(mail.server.env, 'keys')).stdout
    const env = {
      INVITE_CODE_KEY: /invite_code:\s+(\S+)/.exec(keysOut)?.[1] ?? '',
      WAITLIST_URL: mail.server.url,
      WAITLIST_SERVICE_ROLE_KEY: /service_role:\s+(\S+)/.exec(keysOut)?.[1] ?? '',
    }
    const print = (call: string) => `\nprocess.stdout.write(JSON.stringify(${call}))\n`
    const checked = await runSnippet(offline, print(`checkInviteCode(${JSON.stringify(code)})`), env)
    expect(checked).toMatchObject({ invitationId: invitation?.uuid })
    expect(
      await runSnippet(offline, print(`checkInviteCode(${JSON.stringify(tamper(code))})`), env),
    ).toBeNull()
    const redeemed = await runSnippet(redeem, print(`await redeem(${JSON.stringify(code)})`), env)
    expect(redeemed).toMatchObject({ email, first: true })
    expect(await stateOf(email)).toMatchObject([{ status: 'joined' }])
    const refused = await runSnippet(redeem, print(`await redeem('not-a-code')`), env)
    expect(refused).toBeNull()
  })
})
