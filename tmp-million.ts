import pg from 'pg'
import { startTestServer } from './harness/test-server'
import { loadList } from './bench/million-data'
import { runningClusterUrl } from './server/db/embedded/embedded-cluster'
import { startStudioProcess } from './harness/studio-process'
import { writeFileSync } from 'node:fs'

const rows = Number(process.argv[2] ?? 1_000_000)
const source = await startTestServer({ env: { LOG_LEVEL: 'error' }, bundled: true })
const ownerUrl = await runningClusterUrl(source.dataDir)
if (!ownerUrl) throw new Error('no url')
console.log('loading', rows, new Date().toISOString())
const list = await loadList(ownerUrl, rows)
console.log('loaded', list.loadMs, list.vacuumMs)
writeFileSync('/tmp/million-url', `${ownerUrl}\n${source.dataDir}\n`)
const studio = await startStudioProcess(source.env)
writeFileSync('/tmp/million-studio', JSON.stringify({ origin: studio.origin, token: studio.token }))
for (let i = 0; i < 3; i++) {
  const started = performance.now()
  const r = await fetch(`${studio.origin}/api/entries?q=`, { headers: { Authorization: `Bearer ${studio.token}`, 'Sec-Fetch-Site': 'same-origin' } })
  await r.arrayBuffer()
  console.log('first page', r.status, (performance.now() - started).toFixed(0), 'ms')
}
console.log('ready; keeping it up for 40 min')
await new Promise((r) => setTimeout(r, 40 * 60_000))
await studio.stop()
await source.cleanup()
