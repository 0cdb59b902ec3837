import { userInfo } from 'node:os'
import { type Browser, type BrowserContext, expect, type Page } from '@playwright/test'
import { freePort } from '../../harness/postgres-cluster'
import { addVirtualAuthenticator, type VirtualCredential } from '../../harness/virtual-authenticator'
import { auditRecord, runCli } from '../../harness/waitlist-cli'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { addCohort } from '../support/studio-cohort'
import { expectNoAxeViolations, workerTest as test, tickFilter, watchConsole } from './fixtures'

/**
 * Issue 54: the team studio at /studio on the site's own server, in Chromium with a virtual
 * authenticator (CDP, CTAP2, resident keys, user verification). The CLI's links enrol an owner, a
 * member and a viewer; a passkey signs in from a fresh context; the member invites a filtered
 * cohort through a real SMTP server; the viewer sees no invite control and is refused the member's
 * own request; a removed member is refused at once; a replayed challenge and a cross-origin POST are
 * refused; `audit --json` names who did each thing, and the viewer's refusals, folded (×2). A lost
 * device (issue 61): `team link` ends its session, `--revoke` its passkey, removing a passkey ends
 * the sessions it made, and a member ends another of their sessions on the passkeys page.
 */

/** A member's browser: its own context, page and authenticator. */
interface Member {
  context: BrowserContext
  page: Page
  problems: string[]
  credentials(): Promise<VirtualCredential[]>
  touch(): Promise<void>
}

test.describe
  .serial('the team studio', () => {
    let mail: MailTestServer
    let site: string
    const links: Record<string, string> = {}
    const opened: BrowserContext[] = []
    let inviteRequest: { url: string; body: string } | undefined

    /** `team add EMAIL --role ROLE` as the owner runs it over SSH: the link it prints. */
    async function addToTeam(email: string, role: string): Promise<string> {
      const added = await runCli(mail.server.env, 'team', 'add', email, '--role', role)
      expect(added.code, added.stderr).toBe(0)
      const link = /(http:\/\/\S+\/studio\/enrol#\S+)/.exec(added.stdout)?.[1]
      expect(link).toBeDefined()
      return link ?? ''
    }

    async function browse(
      browser: Browser,
      carrying: VirtualCredential[] = [],
      untouched = false,
    ): Promise<Member> {
      const context = await browser.newContext({ baseURL: site })
      opened.push(context)
      const page = await context.newPage()
      const problems = watchConsole(page)
      const authenticator = await addVirtualAuthenticator(context, page, carrying, untouched)
      const { credentials, touch } = authenticator
      return { context, page, problems, credentials, touch }
    }

    /** Opens an enrolment link and creates the passkey: the studio opens, signed in. */
    async function enrol(member: Member, link: string, email: string) {
      const { page } = member
      await page.goto(link)
      await expect(page.getByText(`This link is for ${email}`)).toBeVisible()
      await expect(page.locator('input[type="password"]')).toHaveCount(0)
      await page.getByLabel('Name this passkey (optional)').fill('Test laptop')
      await page.getByRole('button', { name: 'Create a passkey' }).click()
      await expect(page).toHaveURL(`${site}/studio/`)
      await expect(page.getByRole('heading', { name: 'Waitlist studio' })).toBeVisible()
      await expect(page.getByText(email, { exact: false }).first()).toBeVisible()
    }

    test.beforeAll(async () => {
      test.setTimeout(120_000)
      const port = await freePort()
      // A passkey is bound to SITE_URL's host: localhost, as in development (no RP ID is an IP address).
      site = `http://localhost:${port}`
      mail = await startMailTestServer({ PORT: String(port), SITE_URL: site, MAIL_PER_MINUTE: '0' })
      await addCohort(mail.server.env, mail.database.db)
    })
    test.afterAll(async () => {
      for (const context of opened) await context.close()
      await mail?.close()
    })

    test('answers 404 at /studio until someone is on the team', async ({ request }) => {
      const before = await request.get(`${site}/studio/`)
      expect(before.status()).toBe(404)
      links.owner = await addToTeam('owner@lab.example', 'owner')
      links.member = await addToTeam('member@lab.example', 'member')
      links.viewer = await addToTeam('viewer@lab.example', 'viewer')
      expect((await request.get(`${site}/studio/`, { maxRedirects: 0 })).status()).toBe(303)
      // The spec's page names nothing of the studio: its code loads only under /studio.
      expect(await (await request.get(`${site}/`)).text()).not.toContain('studio')
    })

    test("the CLI's link enrols the owner; the passkey signs in from a fresh context; no page has a password field; a replayed challenge and a cross-origin POST are refused", async ({
      browser,
    }) => {
      const first = await browse(browser)
      await enrol(first, links.owner ?? '', 'owner@lab.example')
      await expectNoAxeViolations(first.page)
      // The link works once.
      const again = await browse(browser)
      await again.page.goto(links.owner ?? '')
      await expect(again.page.getByRole('alert')).toContainText('This enrolment link has been used')

      // A fresh context, with the same passkey on its authenticator: signed out, then in. The page
      // offers the passkey to the browser's autofill at once; the person then presses the button.
      // A bookmark's filters wait through the sign-in (contract/studio-return.ts).
      const bookmark = '/studio/?status=waiting&sort=email&order=asc'
      const fresh = await browse(browser, await first.credentials(), true)
      await fresh.page.goto(bookmark)
      await expect(fresh.page).toHaveURL(`${site}/studio/sign-in?next=${encodeURIComponent(bookmark)}`)
      await expect(fresh.page.getByRole('heading', { name: 'Sign in with your passkey' })).toBeVisible()
      await expect(fresh.page.locator('input[type="password"]')).toHaveCount(0)
      await expectNoAxeViolations(fresh.page)
      const verify = fresh.page.waitForRequest((request) =>
        request.url().endsWith('/studio/auth/sign-in/verify'),
      )
      await fresh.touch()
      await fresh.page.getByRole('button', { name: 'Sign in with a passkey' }).click()
      await expect(fresh.page).toHaveURL(`${site}${bookmark}`)
      await expect(fresh.page.getByRole('heading', { name: 'Signups by address, A to Z' })).toBeVisible()
      await expect(fresh.page.getByText('owner@lab.example · owner')).toBeVisible()
      for (const path of ['/studio/', '/studio/activity', '/studio/team', '/studio/passkeys']) {
        await fresh.page.goto(path)
        await expect(fresh.page.getByRole('navigation', { name: 'Tessel Labs studio' })).toBeVisible()
        await expect(fresh.page.locator('input[type="password"]')).toHaveCount(0)
      }

      // The same signed answer, sent again: its challenge was taken by the first.
      const replayed = await fresh.page.request.post('/studio/auth/sign-in/verify', {
        headers: { Origin: site, 'Content-Type': 'application/json' },
        data: (await verify).postData() ?? '',
      })
      expect(replayed.status()).toBe(401)
      // A signed-in owner's cookie, sent by another site's page: refused before any route.
      const crossOrigin = await fresh.page.request.post('/studio/api/remove', {
        headers: { Origin: 'http://evil.example', 'Content-Type': 'application/json' },
        data: { email: 'ada@example.com' },
      })
      expect(crossOrigin.status()).toBe(403)
      expect((await crossOrigin.json()).error).toContain('only from its own pages')
      const signInOptions = await fresh.page.request.post('/studio/auth/sign-in/options', {
        headers: { Origin: 'http://evil.example' },
      })
      expect(signInOptions.status()).toBe(403)
      // Where the browser offers the passkey in the address field's autofill, picking it signs in:
      // this authenticator's person picks at once, without the button. (It carries the passkey as it
      // is after the last sign-in: a copy with an older signature count is a clone, and refused.)
      const autofill = await browse(browser, await fresh.credentials())
      await autofill.page.goto('/studio/sign-in')
      await expect(autofill.page).toHaveURL(`${site}/studio/`)
      await expect(autofill.page.getByText('owner@lab.example · owner')).toBeVisible()
      const clone = await browse(browser, await first.credentials())
      await clone.page.goto('/studio/sign-in')
      await expect(clone.page.getByRole('alert')).toHaveText(
        'That passkey did not sign you in. Try again, or ask an owner for a new enrolment link.',
      )
      expect(first.problems).toEqual([])
      expect(fresh.problems).toEqual([])
      expect(autofill.problems).toEqual([])
    })

    test('a member invites a filtered cohort; the mail goes through a real SMTP server', async ({
      browser,
    }) => {
      const member = await browse(browser)
      await enrol(member, links.member ?? '', 'member@lab.example')
      const { page } = member
      const list = page.getByRole('region', { name: 'Signups, newest first' })
      await tickFilter(list, 'Source', 'launch-post')
      await tickFilter(list, 'Your role', 'Research')
      await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
      // A member chooses and invites; exporting and removing are an owner's.
      await expect(page.getByRole('link', { name: 'Download CSV' })).toHaveCount(0)
      await expect(page.getByRole('button', { name: /^Remove / })).toHaveCount(0)
      const selected = list.getByRole('region', { name: 'Invite selected' })
      await selected.getByRole('checkbox', { name: 'All on this page' }).check()
      await selected.getByRole('button', { name: 'Invite 2 selected' }).click()
      await expect(
        selected.getByRole('heading', { name: '1 person will be invited, of 2 selected' }),
      ).toBeVisible()
      const queue = page.waitForRequest((request) => request.url().endsWith('/studio/api/invite/selected'))
      await selected.getByRole('button', { name: 'Send 1 invitation' }).click()
      const sent = await queue
      inviteRequest = { url: sent.url(), body: sent.postData() ?? '' }
      await expect(selected.getByText(/^Queued 1 invitation/)).toBeVisible()
      const { sink } = mail
      await sink.waitFor(() => sink.received.length >= 1, 'the invitation')
      expect(sink.received.flatMap((received) => received.to)).toEqual(['ada@example.com'])

      // The entry's history names the member who invited it.
      await list.getByRole('table').getByRole('button', { name: 'ada@example.com', exact: true }).click()
      const panel = page.getByRole('dialog', { name: 'ada@example.com' })
      await expect(
        panel.getByRole('listitem').filter({ hasText: /UTCinvited \(batch \d+\) by member@lab\.example$/ }),
      ).toHaveCount(1)
      expect(member.problems).toEqual([])
    })

    test("a viewer sees no invite control, and the member's own request with the viewer's session is refused (403)", async ({
      browser,
    }) => {
      const viewer = await browse(browser)
      await enrol(viewer, links.viewer ?? '', 'viewer@lab.example')
      const { page } = viewer
      const list = page.getByRole('region', { name: 'Signups, newest first' })
      await expect(list.getByRole('row')).toHaveCount(7)
      await expect(page.getByRole('region', { name: 'Invite selected' })).toHaveCount(0)
      await expect(page.getByRole('button', { name: /^Invite/ })).toHaveCount(0)
      await expect(page.getByRole('checkbox', { name: /^Select / })).toHaveCount(0)
      await expect(page.getByRole('link', { name: 'Download CSV' })).toHaveCount(0)
      await expect(page.getByRole('link', { name: 'Team' })).toHaveCount(0)
      await expectNoAxeViolations(page)

      expect(inviteRequest).toBeDefined()
      const tryInvite = () =>
        page.request.post(inviteRequest?.url ?? '', {
          headers: { Origin: site, 'Content-Type': 'application/json' },
          data: inviteRequest?.body ?? '',
        })
      // Twice: the record keeps one line, ×2 (the Activity test below reads it).
      expect((await tryInvite()).status()).toBe(403)
      const refused = await tryInvite()
      expect(refused.status()).toBe(403)
      expect((await refused.json()).error).toBe(
        'You are a viewer on this team, and members and owners may invite people. An owner can change your role.',
      )
      const exported = await page.request.get('/studio/api/export.csv')
      expect(exported.status()).toBe(403)
      expect(mail.sink.received).toHaveLength(1)
      expect(viewer.problems).toEqual([])
    })

    test("a removed member's next request is refused", async ({ browser }) => {
      const member = await browse(browser)
      await enrol(member, (await newLink('member@lab.example')) ?? '', 'member@lab.example')
      expect((await member.page.request.get('/studio/api/summary')).status()).toBe(200)
      const removed = await runCli(mail.server.env, 'team', 'remove', 'member@lab.example')
      expect(removed.code, removed.stderr).toBe(0)
      expect((await member.page.request.get('/studio/api/summary')).status()).toBe(401)
      await member.page.reload()
      await expect(member.page).toHaveURL(`${site}/studio/sign-in`)
    })

    /** A fresh browser carrying `passkeys`: the sign-in page, where its autofill signs in at once. */
    async function signInWith(browser: Browser, passkeys: VirtualCredential[]): Promise<Member> {
      const device = await browse(browser, passkeys)
      await device.page.goto('/studio/sign-in')
      await expect(device.page).toHaveURL(`${site}/studio/`)
      return device
    }
    const summary = async (member: Member) => (await member.page.request.get('/studio/api/summary')).status()

    test('a lost device: `team link` ends its session and `--revoke` its passkey; a removed passkey ends its sessions; a member ends another of their sessions', async ({
      browser,
    }) => {
      // Device A enrols; it is lost. The owner's new link signs it out at once, and says so.
      const lost = await browse(browser)
      await enrol(lost, await addToTeam('lost@lab.example', 'member'), 'lost@lab.example')
      expect(await summary(lost)).toBe(200)
      const linked = await runCli(mail.server.env, 'team', 'link', 'lost@lab.example')
      expect(linked.code, linked.stderr).toBe(0)
      expect(await summary(lost)).toBe(401)
      expect(linked.stdout).toContain(
        'Signed lost@lab.example out everywhere: 1 session ended; each device signs in again.',
      )
      const laptop = await browse(browser)
      await enrol(
        laptop,
        /(http:\/\/\S+\/studio\/enrol#\S+)/.exec(linked.stdout)?.[1] ?? '',
        'lost@lab.example',
      )

      // Without --revoke, A's passkey still signs in (a copy of it, in another browser). The member
      // sees that session on the laptop's passkeys page and ends it.
      const copy = await signInWith(browser, await lost.credentials())
      const { page } = laptop
      await page.goto('/studio/passkeys')
      const sessions = page.getByRole('region', { name: 'Where you are signed in' })
      await expect(sessions.getByRole('listitem')).toHaveCount(2)
      await expect(sessions.getByRole('listitem').filter({ hasText: '(this browser)' })).toContainText(
        /^Chrome on Linux \(this browser\)Last seen \d{4}-\d\d-\d\d \d\d:\d\d UTC from 127\.0\.0\.0\/24; signed in .* with Test laptop/,
      )
      await expectNoAxeViolations(page)
      await sessions.getByRole('button', { name: /^End the session on Chrome on Linux/ }).click()
      await expect(page.getByRole('status')).toHaveText('Ended the session on Chrome on Linux.')
      await expect(sessions.getByRole('listitem')).toHaveCount(1)
      expect(await summary(copy)).toBe(401)
      expect(await summary(laptop)).toBe(200)

      // A's passkey signs in again; removing it on the laptop ends that session, not the laptop's.
      const again = await signInWith(browser, await copy.credentials())
      await page.reload()
      await expect(sessions.getByRole('listitem')).toHaveCount(2)
      await page.getByLabel('Name', { exact: true }).first().fill('Lost phone')
      await page.getByRole('button', { name: 'Save name' }).first().click()
      await expect(page.getByRole('status')).toHaveText('Renamed Lost phone.')
      await page.getByRole('button', { name: 'Remove Lost phone' }).click()
      await expect(page.getByRole('status')).toHaveText('Removed Lost phone; the session it signed in ended.')
      await expect(sessions.getByRole('listitem')).toHaveCount(1)
      expect(await summary(again)).toBe(401)
      expect(await summary(laptop)).toBe(200)
      const clone = await browse(browser, await again.credentials())
      await clone.page.goto('/studio/sign-in')
      await expect(clone.page.getByRole('alert')).toContainText('That passkey did not sign you in')

      // The laptop is stolen too: --revoke removes every passkey, so only the new link's signs in.
      const revoked = await runCli(mail.server.env, 'team', 'link', 'lost@lab.example', '--revoke')
      expect(revoked.code, revoked.stderr).toBe(0)
      expect(revoked.stdout).toContain(
        'Removed 1 passkey of theirs: only the passkey made with this link will sign in.',
      )
      expect(await summary(laptop)).toBe(401)
      const stolen = await browse(browser, await laptop.credentials())
      await stolen.page.goto('/studio/sign-in')
      await expect(stolen.page.getByRole('alert')).toContainText('That passkey did not sign you in')
      const fresh = await browse(browser)
      await enrol(
        fresh,
        /(http:\/\/\S+\/studio\/enrol#\S+)/.exec(revoked.stdout)?.[1] ?? '',
        'lost@lab.example',
      )
      await signInWith(browser, await fresh.credentials())
      for (const member of [lost, laptop, copy, again, fresh]) expect(member.problems).toEqual([])
    })

    async function newLink(email: string): Promise<string | undefined> {
      const made = await runCli(mail.server.env, 'team', 'link', email)
      expect(made.code, made.stderr).toBe(0)
      return /(http:\/\/\S+\/studio\/enrol#\S+)/.exec(made.stdout)?.[1]
    }

    test('`audit --json` names who did each thing; the Activity page shows it and edits nothing', async ({
      browser,
    }) => {
      const lines = await auditRecord(mail.server.env)
      const cli = `cli:${userInfo().username}`
      const did = lines.map(({ actor, action }) => `${actor} ${action}`)
      expect(did).toEqual(
        expect.arrayContaining([
          `${cli} import`,
          `${cli} team add`,
          'owner@lab.example enrol',
          'owner@lab.example sign-in',
          'owner@lab.example sign-in failed',
          'member@lab.example enrol',
          'member@lab.example invite',
          'viewer@lab.example enrol',
          'viewer@lab.example refused',
          `${cli} team link`,
          `${cli} team remove`,
        ]),
      )
      expect(lines.find((line) => line.action === 'invite')).toMatchObject({ count: 1 })
      expect(lines.find((line) => line.detail.startsWith('POST /api/invite/selected:'))).toMatchObject({
        actor: 'viewer@lab.example',
        action: 'refused',
        detail: 'POST /api/invite/selected: a viewer may not invite people',
        times: 2,
      })
      expect(Object.keys(lines[0] ?? {})).toEqual([
        'at',
        'actor',
        'action',
        'detail',
        'count',
        'from',
        'times',
      ])

      const signedIn = await browse(browser)
      await enrol(signedIn, (await newLink('owner@lab.example')) ?? '', 'owner@lab.example')
      await signedIn.page.getByRole('link', { name: 'Activity' }).click()
      const activity = signedIn.page.getByRole('region', { name: 'Activity' })
      await expect(activity.getByRole('row').filter({ hasText: 'member@lab.example' }).first()).toBeVisible()
      // A folded line shows how many times, beside what was done.
      await expect(
        activity
          .getByRole('row')
          .filter({ hasText: 'POST /api/invite/selected: a viewer may not invite people' }),
      ).toContainText('refused ×2')
      await expect(activity.getByRole('textbox')).toHaveCount(0)
      await expect(activity.getByRole('button', { name: /edit|delete|remove/i })).toHaveCount(0)
      await expectNoAxeViolations(signedIn.page)

      // An owner's Team page: a new member's one-use link, shown to hand over.
      const { page } = signedIn
      await page.getByRole('link', { name: 'Team' }).click()
      await page.getByLabel('Add to the team: address').fill('new@lab.example')
      await page.getByLabel('Their role').selectOption('member')
      await page.getByRole('button', { name: 'Add to the team' }).click()
      await expect(page.getByRole('status')).toHaveText('Added new@lab.example as a member.')
      await expect(page.getByLabel(/^Enrolment link for new@lab\.example/)).toHaveValue(
        /\/studio\/enrol#[\w-]{43}$/,
      )
      await expectNoAxeViolations(page)
      // Their own passkeys (one from each link): named, removed, but never the last one.
      await page.getByRole('link', { name: 'Your passkeys' }).click()
      await page.getByLabel('Name', { exact: true }).first().fill('Work laptop')
      await page.getByRole('button', { name: 'Save name' }).first().click()
      await expect(page.getByRole('status')).toHaveText('Renamed Work laptop.')
      await page.getByRole('button', { name: 'Remove Work laptop' }).click()
      // Sessions that passkey signed in elsewhere (an earlier test's, when it ran first) end with it.
      await expect(page.getByRole('status')).toHaveText(
        /^Removed Work laptop(\.|; the (\d+ )?sessions? it signed in ended\.)$/,
      )
      await expect(page.getByRole('button', { name: /^Remove / })).toHaveCount(1)
      await page.getByRole('button', { name: /^Remove / }).click()
      await expect(page.getByRole('alert')).toContainText('Keep one passkey')
      await expectNoAxeViolations(page)
      const record = (await runCli(mail.server.env, 'audit', '--json')).stdout
      expect(record).toContain(
        '"actor":"owner@lab.example","action":"team add","detail":"new@lab.example as member"',
      )
      expect(record).toContain('"action":"passkey rename","detail":"Work laptop"')
      expect(record).toContain('"action":"passkey remove","detail":"Work laptop"')
    })
  })
