import { setTimeout as sleep } from 'node:timers/promises'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import type { MailTestServer } from './mail-test-server'

/**
 * One list as the lab's first batches leave it (issue 51): four page visits by a browser, three
 * signups made on them, three through the API with no visit, then a batch inviting Ann and Ben, a
 * resend to Ann in a second batch, and Ann joining with her newest code. Every view of the funnel
 * must count Ann once: invited 2, joined 1.
 */
export const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'
export const ANN = 'ann@funnel.example.org'
export const BEN = 'ben@funnel.example.org'
export const CAL = 'cal@funnel.example.org'
export const API_SIGNUPS = ['api1@funnel.example.org', 'api2@funnel.example.org', 'api3@funnel.example.org']
export const VISITS = 4

/** The server env this list needs beside the mail: counts written at once, mail sent as fast as taken. */
export const FUNNEL_LIST_ENV = { COUNT_SOURCES_FLUSH_MS: '100', MAIL_PER_MINUTE: '0' }

/** The invite code in the `nth` message (from 1) the SMTP server took for `email`. */
async function codeMailedTo(mail: MailTestServer, email: string, nth: number): Promise<string> {
  const { sink } = mail
  await sink.waitFor(() => sink.countFor(email) >= nth, `message ${nth} to ${email}`)
  const received = sink.received.filter((message) => message.to.includes(email))[nth - 1]
  const text = received ? ((await sink.parse(received)).text ?? '') : ''
  const code = /[?&]invite=([A-Za-z0-9_-]{50})\b/.exec(text)?.[1]
  if (!code) throw new Error(`no invite code in message ${nth} to ${email}`)
  return code
}

/** Fails with `what` unless `ok`: this list is built for Vitest and Playwright alike. */
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`the funnel's list: ${what}`)
}

async function cli(mail: MailTestServer, ...args: string[]): Promise<string> {
  const result = await runCli(mail.server.env, ...args)
  check(result.code === 0, `${args.join(' ')} exited ${result.code}: ${result.stderr}`)
  return result.stdout
}

/**
 * Builds the list on a server started with FUNNEL_LIST_ENV, through its real doors and the CLI.
 * `apiHeaders` gives each API signup's further headers by its index (a signed agent's, issue 67).
 */
export async function listWithAResend(
  mail: MailTestServer,
  apiHeaders: (index: number) => Promise<Record<string, string>> = async () => ({}),
): Promise<void> {
  const { server } = mail
  const browser = { 'user-agent': CHROME }
  for (let visit = 0; visit < VISITS; visit++)
    check((await fetch(`${server.url}/`, { headers: browser })).status === 200, 'a page visit')
  for (const email of [ANN, BEN, CAL]) {
    const signup = await postWaitlist(server, { email }, { ...browser, referer: `${server.url}/` })
    check(signup.status === 201, `the page's signup of ${email}`)
  }
  for (const [index, email] of API_SIGNUPS.entries())
    check(
      (await postWaitlist(server, { email }, await apiHeaders(index))).status === 201,
      `the API's signup of ${email}`,
    )
  await cli(mail, 'invite', ANN, BEN)
  await codeMailedTo(mail, ANN, 1)
  await cli(mail, 'invite', ANN, '--resend')
  const newest = await codeMailedTo(mail, ANN, 2)
  const redeemed = await fetch(`${server.url}/rest/v1/rpc/redeem_invite`, {
    method: 'POST',
    headers: {
      apikey: server.serviceKey,
      Authorization: `Bearer ${server.serviceKey}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ code: newest }),
  })
  check(((await redeemed.json()) as { first?: boolean }).first === true, 'Ann joins with her newest code')
  // The counter writes every 100 ms: wait until the visits and the page's signups are in.
  const deadline = Date.now() + 10_000
  for (;;) {
    const sources = JSON.parse(await cli(mail, 'sources', '--json')) as {
      source: string
      visits: number
      signups: number
    }[]
    const direct = sources.find((row) => row.source === 'direct')
    if (direct?.visits === VISITS && direct.signups === 3) return
    check(Date.now() < deadline, `counts never written: ${JSON.stringify(sources)}`)
    await sleep(50)
  }
}
