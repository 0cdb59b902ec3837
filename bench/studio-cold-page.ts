import { execSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { freePort } from '../harness/postgres-cluster'
import { storedPasskey, teamMember } from '../harness/team-session'
import { bundleForTests } from '../harness/test-bundle'
import { startTestServer } from '../harness/test-server'
import { runCli } from '../harness/waitlist-cli'
import { openPostgres } from '../server/db/postgres-driver'
import { startSession } from '../server/team/team-sessions'
import { loadList } from './million-data'

/**
 * The team studio's first page on a server just started (issue 63): the list's first request, then
 * the summary, then both warm, for an owner's session, `--rounds` starts in turn on one DATA_DIR
 * that keeps its list between runs (loaded once, `--rows`, as `npm run bench` loads the million).
 * `--drop-caches` (root) empties the kernel's page cache before each start and again before the
 * first request, as after a reboot.
 *
 *   npx tsx bench/studio-cold-page.ts --data-dir /tmp/million [--rows 1000000] [--rounds 3] [--drop-caches]
 */
const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '/tmp/lab-site-million' },
    rows: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    'drop-caches': { type: 'boolean', default: false },
  },
})
const dataDir = values['data-dir']
const dropCaches = () => values['drop-caches'] && execSync('sync; echo 3 > /proc/sys/vm/drop_caches')

await bundleForTests()
if (!existsSync(dataDir)) {
  const server = await startTestServer({ dataDir })
  const loaded = await loadList((await runCli(server.env, 'url')).stdout.trim(), Number(values.rows))
  console.log(`loaded ${values.rows} in ${(loaded.loadMs / 1000).toFixed(0)} s`)
  await server.stop()
}

for (let round = 1; round <= Number(values.rounds); round++) {
  dropCaches()
  const port = await freePort()
  const site = `http://localhost:${port}`
  const server = await startTestServer({ dataDir, env: { PORT: String(port), SITE_URL: site } })
  const db = await openPostgres((await runCli(server.env, 'url')).stdout.trim(), 1)
  const member = await teamMember(db, 'owner@lab.example', 'owner')
  const passkeyId = await storedPasskey(db, member, 'laptop')
  const token = await db.transaction((tx) =>
    startSession(tx, member.memberId, { passkeyId, device: 'Chrome on Linux', network: undefined }),
  )
  await db.close()
  dropCaches()
  // On plain HTTP the session's cookie has no __Host- prefix; the page sends its own Origin.
  const timed = async (path: string) => {
    const started = performance.now()
    const response = await fetch(`http://127.0.0.1:${port}/studio${path}`, {
      headers: { Origin: site, Cookie: `studio-session=${token}` },
    })
    await response.arrayBuffer()
    return `${path} ${response.status} ${(performance.now() - started).toFixed(0)} ms`
  }
  const cold = await timed('/api/entries')
  const summary = await timed('/api/summary?days=30')
  const warm = await Promise.all([timed('/api/entries'), timed('/api/summary?days=30')])
  console.log(
    `round ${round} (load ${loadavg()[0]?.toFixed(1)}): cold ${cold}; then ${summary}; warm ${warm.join(', ')}`,
  )
  await server.stop()
}
