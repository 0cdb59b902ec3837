import { describe, expect } from 'vitest'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { whyNotInvited } from '../../server/waitlist/entry-status'
import { serverTest } from '../support/fixtures'

/**
 * Exit statuses a script can trust (issue 51, item 3; owner/cli/exit-status.ts): for every command
 * that acts on several entries, 0 when it did all it could and named each entry it left alone with
 * why, 1 when it did nothing of what was asked, 2 for a usage or configuration error. Through the
 * CLI as a process, on a real server's database.
 */
const PEOPLE = ['ann', 'ben', 'cat', 'dan', 'eve', 'fox'].map((name) => `${name}@exit-status.example.org`)
const [ann, ben, cat, dan, eve, fox] = PEOPLE as [string, string, string, string, string, string]
const NOBODY = 'nobody@exit-status.example.org'

const it = serverTest()

it.beforeAll(async ({ server, cli }) => {
  for (const email of PEOPLE) expect((await postWaitlist(server, { email })).status).toBe(201)
  // Two of them invited already: a later batch naming them leaves them alone.
  expect(await cli('invite', cat, dan)).toMatchObject({ code: 0 })
})

describe('invite', () => {
  it('a batch with some refused is a good batch: 0, each one left alone named with why', async ({ cli }) => {
    const dry = await cli('invite', ann, ben, cat, dan, eve, fox, '--dry-run')
    expect(dry.code, 'the dry run, as the real run').toBe(0)
    const batch = await cli('invite', ann, ben, cat, dan, eve, fox)
    expect(batch).toMatchObject({ code: 0, stderr: '' })
    expect(batch.stdout).toContain(`${cat} ${whyNotInvited('invited')}`)
    expect(batch.stdout).toContain(`${dan} ${whyNotInvited('invited')}`)
    expect(batch.stdout).toContain('Queued 4 invitations.')
  })

  it('nothing of what was asked: 1, with why, and its dry run says so too', async ({ cli }) => {
    const again = await cli('invite', ann, NOBODY)
    expect(again).toMatchObject({ code: 1 })
    expect(again.stdout).toContain(`${ann} ${whyNotInvited('invited')}`)
    expect(again.stdout).toContain(`${NOBODY} is not on the waitlist`)
    expect(again.stdout).toContain('Queued 0 invitations.')
    expect((await cli('invite', ann, '--dry-run')).code).toBe(1)
    // Everyone is invited: --next finds nobody.
    expect(await cli('invite', '--next', '5')).toMatchObject({ code: 1 })
  })

  it('invite --confirm: 1 when every address needed none, each named', async ({ cli }) => {
    const confirm = await cli('invite', '--confirm', ann, NOBODY)
    expect(confirm.code).toBe(1)
    expect(confirm.stdout).toContain(`${ann} is invited: it needs no confirmation`)
    expect(confirm.stdout).toContain(`${NOBODY} is not on the waitlist`)
  })

  it('usage and configuration errors: 2, and nothing tried', async ({ server, cli }) => {
    expect(await cli('invite')).toMatchObject({ code: 2, stdout: '' })
    expect(await cli('invite', '--next', 'ten')).toMatchObject({ code: 2, stdout: '' })
    expect(await cli('invite', ann, '--everyone')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--everyone'"),
    })
    // A variable the server would refuse at start: the same refusal here.
    expect(await runCli({ ...server.env, PORT: 'eighty' }, 'invite', '--next', '1')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('PORT'),
    })
    expect(await cli('remove')).toMatchObject({ code: 2 })
  })
})

describe('remove EMAIL…', () => {
  it('0 when it removed any, naming the addresses not listed; 1 when none was listed', async ({ cli }) => {
    const removed = await cli('remove', fox, NOBODY)
    expect(removed).toMatchObject({ code: 0 })
    expect(removed.stdout).toBe(
      `Removed ${fox} from the waitlist. Imports now skip it until it signs up again and confirms the address (or \`unsuppress\` allows it).\n` +
        `${NOBODY} is not on the waitlist (in any letter case); nothing was removed.\n`,
    )
    expect(await cli('remove', fox, NOBODY)).toMatchObject({ code: 1 })
    expect((await cli('count')).stdout).toBe('5\n')
  })
})

describe('--help', () => {
  it('states the rule once, for every command', async ({ cli }) => {
    const help = await cli('--help')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Exit status, for every command: 0 when it did everything it could')
    expect(help.stdout).toContain('1 when it did nothing of what')
    expect(help.stdout).toContain('2 on a usage or configuration error')
    expect(help.stdout).toContain('remove EMAIL…')
  })
})
