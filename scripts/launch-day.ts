import { launchDay } from '../harness/launch-day'
import { startTestServer } from '../harness/test-server'
import { runCli } from '../harness/waitlist-cli'
import { buildIfStale } from '../server/boot/build-if-stale'

/**
 * A scripted launch day, then what the owner sees: `npx tsx scripts/launch-day.ts`. A real server
 * on a fresh embedded database; the counts reach the database by the server's own timer and its
 * last write on SIGTERM; `npm run waitlist -- sources` reads them. The same run, asserted, is
 * tests/reliability/sources-launch-day.test.ts.
 */
await buildIfStale(console.log)
const server = await startTestServer({ env: { TRUST_PROXY_HEADER: 'x-forwarded-for', LOG_LEVEL: 'error' } })
try {
  const expected = await launchDay(server)
  await server.stop()
  const text = await runCli(server.env, 'sources')
  console.log('$ npm run waitlist -- sources\n')
  console.log(text.stdout.trimEnd())
  const json = await runCli(server.env, 'sources', '--json')
  const rows = JSON.parse(json.stdout) as {
    source: string
    visits: number
    visitors: number
    signups: number
  }[]
  const got = rows.map(({ source, visits, visitors, signups }) => ({ source, visits, visitors, signups }))
  const same = JSON.stringify(got) === JSON.stringify(expected)
  console.log(`\nAs scripted: ${same ? 'yes' : `no; expected ${JSON.stringify(expected)}`}`)
  process.exitCode = same ? 0 : 1
} finally {
  await server.cleanup()
}
