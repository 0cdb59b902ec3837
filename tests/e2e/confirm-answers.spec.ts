import type { Browser, Page } from '@playwright/test'
import { mailWords } from '../../contract/site-config'
import { postWaitlist } from '../../harness/waitlist-api'
import { OWN_PAGE_HOME } from '../../server/analytics/source-of'
import { answersOf } from '../../server/waitlist/entry-answers'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { requestAccessOverMcp } from '../support/mcp-raw'
import { expect, expectNoAxeViolations, SCHEME_BACKGROUNDS, workerTest as test } from './fixtures'

/**
 * The confirmation page's questions in Chromium (issue 43, item 1): a server with CONFIRM_SIGNUPS
 * and a real SMTP server of its own; the link from the message, its button, the questions, and the
 * answers read back from the database; an agent's proposed answers shown filled in (issue 48). No script runs on these pages: the CSP holds, and axe
 * passes in both colour schemes.
 */
const SUBJECT = mailWords.confirmation.subject.replaceAll('{lab}', 'Tessel Labs')
const words = mailWords.pages

// One server for the file's tests, on one worker.
test.describe.configure({ mode: 'serial' })

let mail: MailTestServer

test.beforeAll(async () => {
  mail = await startMailTestServer({
    CONFIRM_SIGNUPS: 'true',
    MAIL_PER_MINUTE: '0',
    RATE_LIMIT_PER_MINUTE: '0',
  })
})
test.afterAll(async () => {
  await mail?.close()
})

async function confirmationLink(email: string): Promise<string> {
  expect((await postWaitlist(mail.server, { email })).status).toBe(201)
  return linkIn(email)
}

/** The confirmation link in the message sent to `email`. */
async function linkIn(email: string): Promise<string> {
  await mail.sink.waitFor(() => mail.sink.countFor(email) === 1, 'the confirmation')
  const messages = await Promise.all(
    mail.sink.received.filter((m) => m.to.includes(email)).map(mail.sink.parse),
  )
  const text = messages.find((m) => m.subject === SUBJECT)?.text ?? ''
  const link = /https?:\/\/\S+\/confirm\?t=[A-Za-z0-9_-]+/.exec(text)?.[0]
  if (!link) throw new Error(`no confirmation link in:\n${text}`)
  return link
}

/** A page of its own, whose console errors (a CSP violation among them) the test collects. */
async function openPage(browser: Browser, colorScheme: 'light' | 'dark') {
  const context = await browser.newContext({ colorScheme })
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text())
  })
  return { context, page, problems }
}

/** The link's GET, then its button: the page that confirms, then asks. */
async function confirmIn(page: Page, link: string): Promise<void> {
  await page.goto(link)
  await page.getByRole('button', { name: words.confirm.button }).click()
  await expect(page.getByRole('heading', { level: 1, name: words.confirm.done })).toBeVisible()
}

for (const [colorScheme, background] of SCHEME_BACKGROUNDS) {
  test(`after the confirm, the page asks the questions and stores the answers (${colorScheme})`, async ({
    browser,
  }) => {
    const email = `answers.${colorScheme}@example.com`
    const link = await confirmationLink(email)
    const { context, page, problems } = await openPage(browser, colorScheme)
    try {
      await confirmIn(page, link)
      expect(await entryStatus(mail.database.db, email)).toBe('waiting')
      const body = await page.locator('body').evaluate((element) => getComputedStyle(element).backgroundColor)
      expect(body, 'the stylesheet loaded under the CSP').toBe(background)
      await expectNoAxeViolations(page)

      await page.getByLabel('Your name').fill('Ada Lovelace')
      await page.getByLabel('Your role').selectOption('Research')
      await page.getByLabel('Organisation').fill('Acme Lab')
      await page.getByLabel('What would you use it for?').fill('Routing tools for support agents')
      await page.getByRole('button', { name: words.answers.button }).click()
      await expect(page.getByRole('heading', { level: 1, name: words.answers.done })).toBeVisible()
      await expectNoAxeViolations(page)
      expect(await answersOf(mail.database.db, email)).toEqual({
        role: 'Research',
        organisation: 'Acme Lab',
        use_case: 'Routing tools for support agents',
      })
      const [named] = await mail.database.db.query<{ name: string }>(
        `select n.name from private.entry_names n join public.waitlist w on w.id = n.waitlist_id
          where w.email = $1`,
        [email],
      )
      expect(named?.name, 'the name is kept apart from the answers').toBe('Ada Lovelace')
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
}

test('a wrong answer shows the form again with the reason; Skip leaves and stores nothing', async ({
  browser,
}) => {
  const email = 'answers.skipped@example.com'
  const link = await confirmationLink(email)
  const { context, page, problems } = await openPage(browser, 'light')
  try {
    await confirmIn(page, link)
    // What a person cannot type past the field's limit, a page changed by hand could send.
    await page
      .getByLabel('Organisation')
      .evaluate((input: HTMLInputElement) => input.removeAttribute('maxlength'))
    await page.getByLabel('Organisation').fill('o'.repeat(101))
    await page.getByRole('button', { name: words.answers.button }).click()
    await expect(page.getByRole('heading', { level: 1, name: words.answers.problem })).toBeVisible()
    await expect(page.getByText('"organisation" must be at most 100 characters')).toBeVisible()
    await expectNoAxeViolations(page)
    // The browser reports the 400 itself; that is the answer this test asks for.
    expect(problems.filter((problem) => !/status of 400/.test(problem))).toEqual([])

    await page.getByRole('link', { name: words.answers.skip }).click()
    // Home, as no page visit: the person was counted when they came (source-of.ts).
    await expect(page).toHaveURL(`${mail.server.url}${OWN_PAGE_HOME}`)
    expect(await answersOf(mail.database.db, email)).toBeUndefined()
  } finally {
    await context.close()
  }
})

test("an agent's proposed answers are shown filled in; what the person sends is what is kept", async ({
  browser,
}) => {
  const email = 'answers.proposed@example.com'
  const proposed = { role: 'Founder or executive', organisation: 'OpenAI' }
  expect(await requestAccessOverMcp(mail.server.url, email, proposed)).toContain('"status":"submitted"')
  const link = await linkIn(email)
  const { context, page, problems } = await openPage(browser, 'light')
  try {
    await confirmIn(page, link)
    await expect(page.getByLabel('Your role')).toHaveValue('Founder or executive')
    await expect(page.getByLabel('Organisation')).toHaveValue('OpenAI')
    await expect(page.getByLabel('What would you use it for?')).toHaveValue('')
    expect(await answersOf(mail.database.db, email), 'shown, not kept').toBeUndefined()

    await page.getByLabel('Organisation').fill('Acme Lab')
    await page.getByRole('button', { name: words.answers.button }).click()
    await expect(page.getByRole('heading', { level: 1, name: words.answers.done })).toBeVisible()
    expect(await answersOf(mail.database.db, email)).toEqual({
      role: 'Founder or executive',
      organisation: 'Acme Lab',
    })
    expect(problems).toEqual([])
  } finally {
    await context.close()
  }
})
