import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import type { Answers } from '../../contract/signup-questions'
import { mailWords, signupQuestions } from '../../contract/site-config'
import { outcomeMessageFor } from '../../contract/waitlist-outcome'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { OWN_PAGE_HOME } from '../../server/analytics/source-of'
import { MAX_ANSWERS_BODY } from '../../server/http/mail-links/questions-form'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { answersOf } from '../../server/waitlist/entry-answers'
import { unsubscribe } from '../../server/waitlist/link-actions'
import { entryStatus } from '../support/entry-status'
import { CONFIRMING, mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { MODERN_MCP, requestAccessOverMcp } from '../support/mcp-raw'

/**
 * The confirmation page's questions (issue 43, item 1), on a real server with CONFIRM_SIGNUPS and a
 * real SMTP server: the link from the message confirms, the page then asks the lab's questions, and
 * only the link's holder can answer them. Answers are read back from the database.
 */
const words = mailWords.pages
const answerWords = words.answers
const SUBJECT = mailWords.confirmation.subject.replaceAll('{lab}', 'Tessel Labs')
// Text no log line may carry: it is someone's answer.
const SECRET_PLAN = 'Evaluating tool routing for the Zanzibar-7 project'

let mail: MailTestServer

const it = mailTest({ ...CONFIRMING, CONFIRM_EXPIRE_CHECK_MS: '200' })

// The file's helpers read these, set once from the fixtures.
it.beforeAll(async ({ mail: started }) => {
  mail = started
})

const db = () => mail.database.db

/** Signs `email` up through the REST insert and returns the confirmation link its message carries. */
async function signUpAndGetLink(email: string): Promise<string> {
  expect((await postWaitlist(mail.server, { email })).status).toBe(201)
  return confirmationLink(email)
}

/** The confirmation link of the message `email` was sent. */
async function confirmationLink(email: string): Promise<string> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const messages = await Promise.all(
      mail.sink.received.filter((m) => m.to.includes(email)).map(mail.sink.parse),
    )
    const text = messages.find((m) => m.subject === SUBJECT)?.text ?? ''
    const link = /https?:\/\/\S+\/confirm\?t=[A-Za-z0-9_-]+/.exec(text)?.[0]
    if (link) return link
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`no confirmation arrived for ${email}`)
}

interface Page {
  status: number
  html: string
  location?: string | null
}

async function pageOf(response: Response): Promise<Page> {
  return { status: response.status, html: await response.text(), location: response.headers.get('location') }
}

/** The link's button, as the page's form sends it. */
const follow = async (link: string) =>
  pageOf(
    await fetch(link, { method: 'POST', body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }) }),
  )

/** Where the page's questions are sent, as an absolute URL. */
function questionsAction(html: string): string {
  const action = /<form class="questions" method="post" action="([^"]+)">/.exec(html)?.[1]
  if (!action) throw new Error(`no questions on the page:\n${html}`)
  return new URL(action.replaceAll('&amp;', '&'), mail.server.url).toString()
}

const send = async (action: string, fields: Record<string, string> | URLSearchParams) =>
  pageOf(await fetch(action, { method: 'POST', body: new URLSearchParams(fields) }))

/** The tool called by the MCP SDK's client over HTTP, as an agent calls it: its text and structured result. */
async function askAnAgent(baseUrl: string, email: string, headers: Record<string, string> = {}) {
  const client = new Client(
    { name: 'next-step', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_MCP } } },
  )
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }),
  )
  try {
    const result = await client.callTool({ name: requestAccessTool.name, arguments: { email } })
    const [content] = result.content as { type: string; text: string }[]
    return { isError: result.isError, text: content?.text, structured: result.structuredContent }
  } finally {
    await client.close()
  }
}

const tokenOf = (link: string) => new URL(link).searchParams.get('t') ?? ''
const answersUrl = (token: string) => `${mail.server.url}/confirm/answers?t=${token}`
const asks = (html: string) => html.includes('<form class="questions"')

describe('the confirmation page, with CONFIRM_SIGNUPS on', () => {
  it("tells an agent, in the page's words, that its person must confirm from their inbox, and names the step", async () => {
    const email = 'agent.asked@example.com'
    const answered = await askAnAgent(mail.server.url, email)
    expect(answered).toEqual({
      isError: false,
      text: 'Request submitted! Check your inbox to confirm your address.',
      structured: {
        status: 'submitted',
        message: 'Request submitted! Check your inbox to confirm your address.',
        next_step: 'confirm_email',
      },
    })
    // The page's own words for the same success, with confirmation on.
    const { title, description } = outcomeMessageFor('submitted', true)
    expect(answered.text).toBe(`${title} ${description}`)
    expect(await entryStatus(db(), email)).toBe('unconfirmed')
    await confirmationLink(email)
  })

  it('confirms as before, then asks the questions: named by their ids, the role a select, all optional, with Skip', async () => {
    const email = 'asked.after@example.com'
    const link = await signUpAndGetLink(email)
    const shown = await pageOf(await fetch(link))
    expect([shown.status, asks(shown.html)], 'the GET asks nothing and changes nothing').toEqual([200, false])
    expect(await entryStatus(db(), email)).toBe('unconfirmed')

    const confirmed = await follow(link)
    expect(confirmed.status).toBe(200)
    expect(confirmed.html).toContain(`<h1>${words.confirm.done}</h1>`)
    expect(await entryStatus(db(), email)).toBe('waiting')
    expect(questionsAction(confirmed.html)).toBe(answersUrl(tokenOf(link)))
    const role = signupQuestions.find((question) => question.id === 'role')
    const choices = role?.kind === 'choice' ? role.choices : []
    const options = [...confirmed.html.matchAll(/<option value="([^"]*)"/g)].map((match) => match[1])
    expect(options).toEqual(['', ...choices])
    expect(confirmed.html).toContain(
      '<label for="answer-role">Your role</label><select id="answer-role" name="role">',
    )
    expect(confirmed.html).toContain('<label for="answer-organisation">Organisation</label>')
    expect(confirmed.html).toMatch(
      /<input id="answer-organisation" name="organisation" type="text" maxlength="100"/,
    )
    expect(confirmed.html).toMatch(/<textarea id="answer-use_case" name="use_case" rows="4" maxlength="500">/)
    expect(confirmed.html).toContain(`<a class="skip" href="${OWN_PAGE_HOME}">${answerWords.skip}</a>`)
    expect(confirmed.html).not.toContain('required')
    expect(await answersOf(db(), email), 'asking stores nothing').toBeUndefined()
  })

  it("stores the link holder's answers and thanks them; answering again replaces them; GET changes nothing", async () => {
    const email = 'answers.twice@example.com'
    const link = await signUpAndGetLink(email)
    const action = questionsAction((await follow(link)).html)
    const thanked = await send(action, {
      role: 'Research',
      organisation: '  Acme Lab ',
      use_case: SECRET_PLAN,
    })
    expect(thanked.status).toBe(200)
    expect(thanked.html).toContain(`<h1>${answerWords.done}</h1>`)
    expect(await answersOf(db(), email)).toEqual({
      role: 'Research',
      organisation: 'Acme Lab',
      use_case: SECRET_PLAN,
    })

    // The link again, a day later: confirmed already, the questions once more.
    const again = await follow(link)
    expect([again.status, asks(again.html)]).toEqual([200, true])
    expect((await send(questionsAction(again.html), { role: 'Product', organisation: '' })).status).toBe(200)
    expect(await answersOf(db(), email), 'the whole set replaced').toEqual({ role: 'Product' })

    const got = await pageOf(await fetch(action, { redirect: 'manual' }))
    expect([got.status, got.location]).toEqual([303, `/confirm?t=${tokenOf(link)}`])
    expect(await answersOf(db(), email)).toEqual({ role: 'Product' })
    expect(mail.server.output()).not.toContain(SECRET_PLAN)
    expect(mail.server.output()).not.toContain('Acme Lab')
    expect(mail.server.output()).not.toContain(email)
  })

  it('shows the form again with the reason (400) for a wrong answer, and stores nothing', async () => {
    const email = 'wrong.answer@example.com'
    const link = await signUpAndGetLink(email)
    const action = questionsAction((await follow(link)).html)
    expect((await send(action, { role: 'Engineering' })).status).toBe(200)

    const astronaut = await send(action, { role: 'Astronaut', organisation: '<b>Acme</b>' })
    expect(astronaut.status).toBe(400)
    expect(astronaut.html).toContain(`<h1>${answerWords.problem}</h1>`)
    expect(astronaut.html).toContain(
      'Nothing was stored: &quot;role&quot; must be one of &quot;Research&quot;',
    )
    expect(questionsAction(astronaut.html), 'the form again, to the same link').toBe(action)
    expect(astronaut.html, 'what was typed, shown again, escaped').toContain(
      'value="&lt;b&gt;Acme&lt;/b&gt;"',
    )

    const long = await send(action, { use_case: 'x'.repeat(501) })
    expect([long.status, long.html.includes('must be at most 500 characters')]).toEqual([400, true])
    const twice = await send(
      action,
      new URLSearchParams([
        ['role', 'Research'],
        ['role', 'Other'],
      ]),
    )
    expect([twice.status, twice.html.includes('&quot;role&quot; must be a string')]).toEqual([400, true])
    const json = await pageOf(
      await fetch(action, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"role":"Other"}',
      }),
    )
    expect([json.status, json.html.includes('the answers come as a form')]).toEqual([400, true])
    const huge = await send(action, { use_case: 'y'.repeat(MAX_ANSWERS_BODY) })
    expect(huge.status).toBe(413)
    expect(await answersOf(db(), email), 'the earlier answers, untouched').toEqual({ role: 'Engineering' })
  })

  it("only the confirmation link's own token answers; a test send's says nothing was changed", async () => {
    const email = 'only.holder@example.com'
    const link = await signUpAndGetLink(email)
    await follow(link)
    const keys = linkKeys(mail.server.secret)
    const token = tokenOf(link)
    const tampered = token.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'))
    for (const other of [tampered, sealAddress(keys.unsubscribe, email), '']) {
      const refused = await send(answersUrl(other), { role: 'Research' })
      expect([refused.status, refused.html.includes(words.invalid)]).toEqual([400, true])
    }
    const test = await send(answersUrl(sealAddress(keys.testLink, email)), { role: 'Research' })
    expect([test.status, test.html.includes(words.test)]).toEqual([200, true])
    expect(test.html).toContain(`<h1>${answerWords.unchanged}</h1>`)
    expect(await answersOf(db(), email)).toBeUndefined()
  })

  it('changes nothing for an entry that unsubscribed, or one erased, and says so', async () => {
    const email = 'answered.then.left@example.com'
    const link = await signUpAndGetLink(email)
    const action = questionsAction((await follow(link)).html)
    expect((await send(action, { organisation: 'Before' })).status).toBe(200)
    expect(await unsubscribe(db(), email)).toBe('done')
    const after = await send(action, { organisation: 'After' })
    expect([after.status, after.html.includes(answerWords.unsubscribed)]).toEqual([200, true])
    expect(await answersOf(db(), email)).toEqual({ organisation: 'Before' })
    expect(asks((await follow(link)).html), 'no questions for an unsubscribed address').toBe(false)

    expect((await runCli(mail.server.env, 'remove', email)).code).toBe(0)
    const gone = await send(action, { organisation: 'Again' })
    expect([gone.status, gone.html.includes(words.gone)]).toEqual([200, true])
    expect(await answersOf(db(), email)).toBeUndefined()
  })
})

/** `show EMAIL --json`, as the owner's CLI prints it. */
async function shown(email: string): Promise<{ status: string; answers: Answers; proposed: Answers }> {
  const result = await runCli(mail.server.env, 'show', email, '--json')
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout)
}

/** Whether `list --answer ID=VALUE` picks the address. */
const picks = async (answer: string, email: string) =>
  (await runCli(mail.server.env, 'list', '--answer', answer)).stdout.includes(email)

// What a stranger's agent says of someone else (issue 48, item 3).
const STRANGER = { role: 'Founder or executive', organisation: 'OpenAI' }

/** An agent's signup over MCP (HTTP) with answers, then the confirmation link its message carries. */
async function agentSignupLink(email: string, answers: Record<string, string>): Promise<string> {
  expect(await requestAccessOverMcp(mail.server.url, email, answers)).toContain('"status":"submitted"')
  return confirmationLink(email)
}

describe("an agent's answers are only proposed, until the person keeps them", () => {
  it('a stranger answers for the victim: held as proposed, shown filled in; the victim skips and none count', async () => {
    const email = 'victim@example.com'
    const link = await agentSignupLink(email, STRANGER)
    expect(await shown(email)).toMatchObject({ status: 'unconfirmed', answers: {}, proposed: STRANGER })
    const text = (await runCli(mail.server.env, 'show', email)).stdout
    expect(text).toContain(
      '  answers  (none)\n  proposed role: Founder or executive\n           organisation: OpenAI\n',
    )
    expect(text).toContain("(an agent's, not counted until the person keeps them on the confirmation page)")

    const confirmed = await follow(link)
    expect(confirmed.html).toContain('<option value="Founder or executive" selected>')
    expect(confirmed.html).toMatch(/<input id="answer-organisation" name="organisation" [^>]*value="OpenAI">/)
    // Skip is a link home: nothing is posted, nothing is kept.
    expect(confirmed.html).toContain(`<a class="skip" href="${OWN_PAGE_HOME}">${answerWords.skip}</a>`)
    expect(await shown(email)).toMatchObject({ status: 'waiting', answers: {}, proposed: STRANGER })
    expect(await picks('role=Founder or executive', email)).toBe(false)
    expect(await picks('organisation=OpenAI', email)).toBe(false)
    const exported = (await runCli(mail.server.env, 'export')).stdout.split('\n')
    const columns = exported[0]?.split(',') ?? []
    const row = exported.find((line) => line.startsWith(`${email},`))?.split(',') ?? []
    for (const id of ['answer_role', 'answer_organisation']) expect(row[columns.indexOf(id)], id).toBe('')
  })

  it('the person keeps them, changes one, or clears them: what is posted is what counts', async () => {
    const keeper = 'keeps.them@example.com'
    const action = questionsAction((await follow(await agentSignupLink(keeper, STRANGER))).html)
    expect((await send(action, { role: 'Founder or executive', organisation: 'OpenAI Inc' })).status).toBe(
      200,
    )
    expect(await shown(keeper)).toMatchObject({
      answers: { role: 'Founder or executive', organisation: 'OpenAI Inc' },
      proposed: {},
    })
    expect(await picks('organisation=OpenAI Inc', keeper)).toBe(true)
    // Following the link again shows the person's own answers now.
    expect((await follow(action.replace('/confirm/answers', '/confirm'))).html).toContain(
      'value="OpenAI Inc"',
    )

    const clearer = 'clears.them@example.com'
    const cleared = questionsAction((await follow(await agentSignupLink(clearer, STRANGER))).html)
    expect((await send(cleared, { role: '', organisation: '' })).status).toBe(200)
    expect(await shown(clearer)).toMatchObject({ answers: {}, proposed: {} })
    expect(await picks('role=Founder or executive', clearer)).toBe(false)
  })

  it("refuses answers before the token's confirmation is posted, in the page's words, changing nothing", async () => {
    const email = 'not.confirmed.yet@example.com'
    const link = await agentSignupLink(email, STRANGER)
    const early = await send(answersUrl(tokenOf(link)), { role: 'Research', organisation: 'Someone Else' })
    expect(early.status).toBe(409)
    expect(early.html).toContain(`<h1>${answerWords.unchanged}</h1>`)
    expect(early.html).toContain(answerWords.unconfirmed)
    expect(await shown(email)).toMatchObject({ status: 'unconfirmed', answers: {}, proposed: STRANGER })
  })

  it('fixes the answers once the entry is invited: a later post changes nothing, and the page says they went to the lab', async () => {
    const email = 'invited.answers@example.com'
    const action = questionsAction((await follow(await signUpAndGetLink(email))).html)
    expect((await send(action, { role: 'Research', organisation: 'Acme' })).status).toBe(200)
    expect((await runCli(mail.server.env, 'invite', email)).code).toBe(0)
    await mail.sink.waitFor(() => mail.sink.countFor(email) === 2, 'the invitation')
    const late = await send(action, { role: 'Other', organisation: 'Changed later' })
    expect(late.status).toBe(200)
    expect(late.html).toContain(`<h1>${answerWords.unchanged}</h1>`)
    expect(late.html).toContain(answerWords.fixed)
    expect(await shown(email)).toMatchObject({
      status: 'invited',
      answers: { role: 'Research', organisation: 'Acme' },
    })
    expect(
      asks((await follow(action.replace('/confirm/answers', '/confirm'))).html),
      'no questions once invited',
    ).toBe(false)
  })
})

/** The rows of private.entry_answers (or proposed_answers) whose entry had this id: none once the entry is erased. */
async function answerRows(waitlistId: string, table = 'entry_answers'): Promise<number> {
  const [row] = await db().query<{ n: number }>(
    `select count(*)::int as n from private.${table} where waitlist_id = $1::bigint`,
    [waitlistId],
  )
  return row?.n ?? 0
}

async function idOf(email: string): Promise<string> {
  const [row] = await db().query<{ id: string }>(
    'select id::text as id from public.waitlist where email = $1',
    [email],
  )
  if (!row) throw new Error(`${email} is not on the list`)
  return row.id
}

describe('answers are personal data', () => {
  it('no REST read names them: anon cannot reach the private table, service_role reads the waitlist without them', async () => {
    const email = 'private.answers@example.com'
    const link = await signUpAndGetLink(email)
    await send(questionsAction((await follow(link)).html), {
      organisation: 'Hidden Org',
      use_case: SECRET_PLAN,
    })
    const { url, anonKey, serviceKey } = mail.server
    const read = (key: string, path: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/rest/v1/${path}`, {
        headers: { apikey: key, Authorization: `Bearer ${key}`, ...headers },
      })

    for (const key of [anonKey, serviceKey]) {
      const table = await read(key, 'entry_answers?select=*')
      expect(table.status, 'no such table in public').toBeGreaterThanOrEqual(400)
      const profile = await read(key, 'entry_answers?select=*', { 'Accept-Profile': 'private' })
      expect(profile.status, 'the private schema is not exposed').toBeGreaterThanOrEqual(400)
      expect(await table.text()).not.toContain('Hidden Org')
    }
    const everything = await read(serviceKey, 'waitlist?select=*')
    expect(everything.status).toBe(200)
    const rows = (await everything.json()) as Record<string, unknown>[]
    expect(rows.some((row) => row.email === email)).toBe(true)
    expect(JSON.stringify(rows)).not.toContain('Hidden Org')
    expect((await read(serviceKey, 'waitlist?select=email,answers')).status, 'not a column').toBe(400)
  })

  it('are erased by `remove`', async () => {
    const email = 'removed.answers@example.com'
    const link = await signUpAndGetLink(email)
    await send(questionsAction((await follow(link)).html), { role: 'Founder or executive' })
    const id = await idOf(email)
    expect(await answerRows(id)).toBe(1)
    expect((await runCli(mail.server.env, 'remove', email)).code).toBe(0)
    expect(await answerRows(id)).toBe(0)
  })

  it('are erased with an unconfirmed entry when its confirmation expires', async () => {
    const email = 'expired.answers@example.com'
    // An agent's answers, proposed, and the address never confirmed.
    expect(await requestAccessOverMcp(mail.server.url, email, { organisation: 'Never Confirmed' })).toContain(
      '"status":"submitted"',
    )
    expect(await entryStatus(db(), email)).toBe('unconfirmed')
    const id = await idOf(email)
    expect(await answerRows(id, 'proposed_answers')).toBe(1)
    await db().query(
      `update public.waitlist set created_at = created_at - interval '8 days' where id = $1::bigint`,
      [id],
    )
    await db().query(
      `update private.entry_status set confirm_sent_at = confirm_sent_at - interval '8 days' where waitlist_id = $1::bigint`,
      [id],
    )
    const deadline = Date.now() + 30_000
    while ((await entryStatus(db(), email)) !== undefined && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await entryStatus(db(), email), 'erased').toBeUndefined()
    expect(await answerRows(id, 'proposed_answers')).toBe(0)
  })
})

describe('a server with CONFIRM_SIGNUPS off and a rate limit', () => {
  let server: TestServer
  let addresses = 0
  const from = () => ({ 'x-forwarded-for': `203.0.113.${++addresses}` })

  beforeAll(async () => {
    server = await startTestServer({
      env: { TRUST_PROXY_HEADER: 'x-forwarded-for', RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '2' },
    })
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  const confirmToken = (email: string) => sealAddress(linkKeys(server.secret).confirm, email)

  it('tells an agent the request is in, and that its person waits for the invitation', async () => {
    const answered = await askAnAgent(server.url, 'agent.unasked@example.com', from())
    expect(answered).toEqual({
      isError: false,
      text: "Request submitted! We'll be in touch soon about beta access.",
      structured: {
        status: 'submitted',
        message: "Request submitted! We'll be in touch soon about beta access.",
        next_step: 'wait_for_invitation',
      },
    })
  })

  it('asks nothing more on the confirmation page: there is no confirmation', async () => {
    const email = 'no.confirmation@example.com'
    expect((await postWaitlist(server, { email }, from())).status).toBe(201)
    const page = await pageOf(
      await fetch(`${server.url}/confirm?t=${confirmToken(email)}`, { method: 'POST', headers: from() }),
    )
    expect(page.status).toBe(200)
    expect(page.html).toContain(`<h1>${words.confirm.done}</h1>`)
    expect(asks(page.html)).toBe(false)
  })

  it('limits the answers as the links’ POSTs: the third in a row from one address gets 429', async () => {
    const email = 'limited.answers@example.com'
    expect((await postWaitlist(server, { email }, from())).status).toBe(201)
    const client = from()
    const post = () =>
      fetch(`${server.url}/confirm/answers?t=${confirmToken(email)}`, {
        method: 'POST',
        headers: client,
        body: new URLSearchParams({ role: 'Other' }),
      })
    const statuses = [(await post()).status, (await post()).status]
    const third = await post()
    expect([...statuses, third.status]).toEqual([200, 200, 429])
    expect(await third.text()).toContain(words.busy)
  })
})

/** The text part of the `nth` message (from 1) the sink received for `email`. */
async function messageText(email: string, nth: number): Promise<string> {
  await mail.sink.waitFor(() => mail.sink.countFor(email) >= nth, `message ${nth} for ${email}`)
  const messages = await Promise.all(
    mail.sink.received.filter((m) => m.to.includes(email)).map(mail.sink.parse),
  )
  return messages[nth - 1]?.text ?? ''
}

describe('a name per person (issue 64, item 2)', () => {
  it('is asked first on the confirmation page, kept as given, and greets the person in the invitation', async () => {
    const email = 'named.person@example.com'
    const link = await signUpAndGetLink(email)
    expect(await messageText(email, 1), 'no name yet: the greeting as before').toContain(
      `${mailWords.confirmation.greeting}\n`,
    )
    const confirmed = await follow(link)
    expect(confirmed.html).toMatch(
      /<label for="answer-name">Your name<\/label><input id="answer-name" name="name" type="text" maxlength="200" value="">/,
    )
    expect(confirmed.html.indexOf('answer-name')).toBeLessThan(confirmed.html.indexOf('answer-role'))
    const action = questionsAction(confirmed.html)
    expect((await send(action, { name: '  Ada Lovelace ', role: 'Research' })).status).toBe(200)
    expect(await shown(email)).toMatchObject({ name: 'Ada Lovelace', answers: { role: 'Research' } })
    const listed = (await runCli(mail.server.env, 'list', '--json')).stdout.split('\n')
    expect(JSON.parse(listed.find((line) => line.includes(email)) ?? '{}')).toMatchObject({
      name: 'Ada Lovelace',
    })
    // The form shows it again, for the person to keep or change.
    expect((await follow(link)).html).toContain(
      'name="name" type="text" maxlength="200" value="Ada Lovelace"',
    )

    expect((await runCli(mail.server.env, 'invite', email)).code).toBe(0)
    const invitation = await messageText(email, 2)
    expect(invitation).toContain(`${mailWords.greetingNamed.replace('{name}', 'Ada')}\n`)
    expect(invitation).not.toContain(`${mailWords.invitation.greeting}\n`)
  })

  it('greets by the first name a list gave, where it had one, before the name’s first word', async () => {
    const email = 'named.by.list@example.com'
    await follow(await signUpAndGetLink(email))
    // As an import writes a sheet's first- and last-name columns (migration 20261207500000).
    await db().query(
      `insert into private.entry_names (waitlist_id, name, given_name)
       select id, 'Dr. Grace B. Hopper', 'Grace' from public.waitlist where email = $1`,
      [email],
    )
    expect((await runCli(mail.server.env, 'invite', email)).code).toBe(0)
    expect(await messageText(email, 2)).toContain(`${mailWords.greetingNamed.replace('{name}', 'Grace')}\n`)
  })

  it('is only proposed when an agent gives it, until the person keeps it; a wrong one is refused; cleared, it goes', async () => {
    const email = 'named.by.agent@example.com'
    const link = await agentSignupLink(email, { name: 'Mallory Stranger', role: 'Research' })
    expect(await shown(email)).toMatchObject({
      name: null,
      answers: {},
      proposed: { name: 'Mallory Stranger', role: 'Research' },
    })
    const page = await follow(link)
    expect(page.html).toContain('value="Mallory Stranger"')
    const action = questionsAction(page.html)
    const tooLong = await send(action, { name: 'A'.repeat(201) })
    expect(tooLong.status).toBe(400)
    expect(tooLong.html).toContain('&quot;name&quot; must be at most 200 characters')
    expect(await shown(email)).toMatchObject({ name: null })
    expect((await send(action, { name: 'Grace Hopper', role: 'Research' })).status).toBe(200)
    expect(await shown(email)).toMatchObject({
      name: 'Grace Hopper',
      answers: { role: 'Research' },
      proposed: {},
    })
    expect((await send(action, { name: '', role: 'Research' })).status).toBe(200)
    expect(await shown(email)).toMatchObject({ name: null, answers: { role: 'Research' } })
  })
})
