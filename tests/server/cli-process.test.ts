import { expect } from 'vitest'
import { startStudioProcess } from '../../harness/studio-process'
import { runCliProcess } from '../../harness/waitlist-cli'
import { COMMANDS } from '../../owner/cli/commands'
import { insertStatus } from '../reliability/support'
import { mailTest } from '../support/fixtures'

/**
 * Every command once as the owner starts it: `node waitlist-cli` in a process of its own, through
 * the .env reading, the exit and the pipes that the in-process runner of the other suites skips
 * (harness/waitlist-cli.ts: runCli calls the same runCommandLine). A command added to COMMANDS
 * without a line here fails the first test.
 */
// With a sender, so that `preflight` has a server to answer it.
const it = mailTest({ RATE_LIMIT_PER_MINUTE: '0', MAIL_PER_MINUTE: '0' })

const ADA = 'ada.process@example.com'
const BEA = 'bea.process@example.com'

/** A command line, and what its process must give: the exit status, and a line of its output. */
const RUNS: Record<string, { args: string[]; code: number; says: RegExp }> = {
  count: { args: ['count'], code: 0, says: /^2\n$/ },
  list: { args: ['list', '--json'], code: 0, says: /"email" ?: ?"ada\.process@example\.com"/ },
  export: { args: ['export'], code: 0, says: /^email,created_at,status,/ },
  show: { args: ['show', ADA], code: 0, says: /ada\.process@example\.com/ },
  funnel: { args: ['funnel', '--json'], code: 0, says: /"rows" ?:/ },
  keys: { args: ['keys'], code: 0, says: /anon/ },
  url: { args: ['url'], code: 0, says: /^postgres(ql)?:\/\//m },
  backup: { args: ['backup'], code: 2, says: /backup --to DIR/ },
  restore: { args: ['restore'], code: 2, says: /--from/ },
  tag: { args: ['tag', ADA, 'shortlist'], code: 0, says: /shortlist/ },
  untag: { args: ['untag', ADA, 'shortlist'], code: 0, says: /shortlist/ },
  note: { args: ['note', ADA, 'Met at the workshop'], code: 0, says: /./ },
  'consent-words': { args: ['consent-words', '--json'], code: 0, says: /^\[/ },
  suppressed: { args: ['suppressed'], code: 0, says: /\d/ },
  unsuppress: { args: ['unsuppress', BEA], code: 1, says: /was not kept out/ },
  import: { args: ['import', 'no-such-file.csv'], code: 1, says: /no-such-file\.csv/ },
  remove: { args: ['remove', BEA], code: 0, says: /bea\.process@example\.com/ },
  stats: { args: ['stats'], code: 0, says: /total/i },
  sources: { args: ['sources', '--json'], code: 0, says: /^\[/ },
  invite: { args: ['invite', '--next', '1', '--dry-run'], code: 0, says: /ada\.process@example\.com/ },
  team: { args: ['team', 'list'], code: 0, says: /./ },
  audit: { args: ['audit', '--json'], code: 0, says: /"action" ?: ?"note/ },
  deliveries: { args: ['deliveries'], code: 0, says: /./ },
  preflight: { args: ['preflight'], code: 0, says: /^Preflight of .*tessel-labs\.example/m },
}

it('has a process run for every command the CLI knows', () => {
  expect(Object.keys(RUNS).sort()).toEqual(
    Object.keys(COMMANDS)
      .filter((name) => name !== 'studio')
      .sort(),
  )
})

it('runs each command as a process with the status and output the in-process runner gives', async ({
  server,
}) => {
  for (const email of [ADA, BEA]) expect(await insertStatus(server, email)).toBe(201)
  for (const [name, run] of Object.entries(RUNS)) {
    const result = await runCliProcess(server.env, ...run.args)
    expect.soft(result.code, `${name}: ${result.stderr}`).toBe(run.code)
    expect.soft(result.stdout + result.stderr, name).toMatch(run.says)
  }
})

it('starts the studio as a process, which answers on its link until Ctrl-C', async ({ server }) => {
  const studio = await startStudioProcess(server.env)
  try {
    const response = await fetch(`${studio.origin}/api/entries`, {
      headers: { Authorization: `Bearer ${studio.token}` },
    })
    expect(response.status).toBe(200)
  } finally {
    expect(await studio.stop()).toBe(0)
  }
})
