import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'

/**
 * Issue 41: the lab's 50 addresses were a plain list, one address a line under the header `email`.
 * import refused it (no created_at), and refused every line of `email,created_at` with the dates
 * empty. Now a header of `email`, with any of the export's columns in any order, imports: a
 * missing or empty created_at is the import's time, a missing status is waiting. The list is the
 * lab's own: no confirmation goes out (even with CONFIRM_SIGNUPS on) and no webhook is called.
 */
let scratch: string
let mail: MailTestServer
let receiver: WebhookReceiver

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'import-plain-list-'))
  receiver = await startWebhookReceiver()
  receiver.answer({ kind: 'status', status: 204 })
  mail = await startMailTestServer({ CONFIRM_SIGNUPS: 'true', SIGNUP_WEBHOOK_URL: receiver.url })
})

afterAll(async () => {
  await mail?.close()
  await receiver?.close()
  await rm(scratch, { recursive: true, force: true })
})

async function csvFile(name: string, lines: string[]): Promise<string> {
  const path = join(scratch, name)
  await writeFile(path, `${lines.join('\n')}\n`)
  return path
}

/** `list` as the owner reads it: created_at, the address, its status, for the addresses given. */
async function listed(emails: string[]) {
  const { stdout } = await runCli(mail.server.env, 'list')
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.split('  '))
    .filter(([, email]) => emails.includes(email ?? ''))
}

describe('import of a plain list', () => {
  it('takes a header of email alone: the addresses join now, in the file’s order, waiting, unannounced', async () => {
    const before = new Date().toISOString()
    const emails = ['plain.one@example.com', 'Plain.Two@example.com', 'plain.three@example.org']
    const file = await csvFile('plain.csv', ['email', ...emails, ''])
    const imported = await runCli(mail.server.env, 'import', file)
    expect(imported).toMatchObject({ code: 0, stderr: '' })
    expect(imported.stdout).toContain('3 added; 0 are already on the list')
    const rows = await listed(emails)
    expect(rows.map(([, email, status]) => [email, status])).toEqual(
      emails.map((email) => [email, 'waiting']),
    )
    for (const [createdAt] of rows) {
      expect(createdAt && createdAt >= before.slice(0, 19)).toBe(true)
      expect(createdAt && createdAt <= new Date().toISOString()).toBe(true)
    }
    // A signup through the site, to show the webhook and the confirmation work: only it is announced.
    expect((await postWaitlist(mail.server, { email: 'site.signup@example.com' })).status).toBe(201)
    await receiver.waitFor(() => receiver.requests.length >= 1, 'the site signup’s webhook')
    await mail.sink.waitFor(() => mail.sink.countFor('site.signup@example.com') === 1, 'its confirmation')
    expect(receiver.requests.map((request) => request.body).join('\n')).not.toMatch(/plain\./i)
    for (const email of emails) expect(mail.sink.countFor(email)).toBe(0)
  })

  it('takes email,created_at with the dates empty, and columns in any order and letter case', async () => {
    const empty = await csvFile('empty-dates.csv', [
      'email,created_at',
      'no.date@example.com,',
      'dated@example.com,2024-11-01T09:00:00Z',
    ])
    expect(await runCli(mail.server.env, 'import', empty)).toMatchObject({ code: 0 })
    const rows = await listed(['no.date@example.com', 'dated@example.com'])
    expect(rows.find(([, email]) => email === 'dated@example.com')?.[0]).toBe('2024-11-01T09:00:00.000000Z')
    expect(rows.find(([, email]) => email === 'no.date@example.com')?.[0]).toMatch(/^20\d\d-/)

    const reordered = await csvFile('reordered.csv', [
      'Status, EMAIL',
      'invited,ordered.invited@example.com',
      ',ordered.waiting@example.com',
    ])
    expect(await runCli(mail.server.env, 'import', reordered)).toMatchObject({ code: 0 })
    expect(
      (await listed(['ordered.invited@example.com', 'ordered.waiting@example.com'])).map(([, e, s]) => [
        e,
        s,
      ]),
    ).toEqual([
      ['ordered.invited@example.com', 'invited'],
      ['ordered.waiting@example.com', 'waiting'],
    ])
  })

  it('keeps import’s promises: a row without an address is named and skipped, any other bad line adds nothing, listed addresses are skipped', async () => {
    const before = Number((await runCli(mail.server.env, 'count')).stdout)
    const skipping = await csvFile('skipping.csv', [
      'email',
      'fine.one@example.com',
      'not an address',
      'fine.two@example.com',
    ])
    const skipped = await runCli(mail.server.env, 'import', skipping)
    expect(skipped).toMatchObject({ code: 0 })
    expect(skipped.stderr).toBe(
      `${skipping}: 1 row without a usable address was skipped:\n  line 3: email "not an address": not a valid e-mail address; skipped\n`,
    )
    expect(skipped.stdout).toContain('2 added;')
    expect(Number((await runCli(mail.server.env, 'count')).stdout)).toBe(before + 2)
    const bad = await csvFile('bad.csv', ['email,created_at', 'fine.three@example.com,someday'])
    const refused = await runCli(mail.server.env, 'import', bad)
    expect(refused).toMatchObject({ code: 1 })
    expect(refused.stderr).toContain(
      '1 bad line; nothing was imported.\n  line 2: created_at "someday": not a date',
    )
    expect(Number((await runCli(mail.server.env, 'count')).stdout)).toBe(before + 2)
    const again = await csvFile('again.csv', ['email', 'plain.one@example.com', 'new.one@example.com'])
    const dryRun = await runCli(mail.server.env, 'import', again, '--dry-run')
    expect(dryRun.stdout).toContain('1 would be added, 1 is already on the list and would be skipped.')
    expect((await runCli(mail.server.env, 'import', again)).stdout).toContain(
      '1 added; 1 is already on the list',
    )
  })

  it('refuses a header it does not know, naming what is wrong and what it reads', async () => {
    const env = { DATA_DIR: '/nonexistent-data-dir' }
    const named = await runCli(
      env,
      'import',
      await csvFile('named.csv', ['Name,Phone', 'Ada,+44 20 7946 0000']),
    )
    expect(named).toMatchObject({ code: 1 })
    expect(named.stderr).toContain(
      'does not start with a header line import reads (found "Name,Phone"): it has no email column, by its header or its contents. ' +
        'The first line names the columns: email (or Email Address, E-mail, a question asking for it), and any others',
    )
    const bare = await runCli(
      env,
      'import',
      await csvFile('bare.csv', ['ada@example.com', 'bob@example.com']),
    )
    expect(bare.stderr).toContain(
      '(found "ada@example.com"): the first line is an address: put a line with the word email above the list.',
    )
    const twice = await runCli(env, 'import', await csvFile('twice.csv', ['email,Email', 'a@b.co,a@b.co']))
    expect(twice.stderr).toContain('"email" and "Email" both name email')
    const none = await runCli(
      env,
      'import',
      await csvFile('none.csv', ['created_at', '2024-11-01T09:00:00Z']),
    )
    expect(none.stderr).toContain('it has no email column')
  })
})
