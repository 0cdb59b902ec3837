import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { emptyDataDir } from '../harness/data-dir'
import { type MeasuredRun, runMeasured } from '../harness/measured-cli'
import { startTestServer, type TestServer } from '../harness/test-server'
import { runningClusterUrl } from '../server/db/embedded/embedded-cluster'
import { loadList } from './million-data'
import type { Row, Track } from './table'

/**
 * Backup and restore at a million signups (issue 65): the list loaded as the million section loads
 * it, on a server with continuous backup to a file store; then `backup --to DIR` beside it and
 * `restore --from DIR` onto a new DATA_DIR, each timed and sized; then the store's own base at that
 * size (a spool made anew asks for one at start) and `restore --from file://…` from it.
 */
const MiB = 1024 * 1024
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`
const bytesIn = (path: string) => Number(execFileSync('du', ['-sb', path]).toString().split('\t')[0])

interface BackupStatus {
  lastBaseAt?: string
  lastPieceAt?: string
}
const statusOf = async (dataDir: string): Promise<BackupStatus> =>
  JSON.parse(await readFile(join(dataDir, 'backup-status.json'), 'utf8').catch(() => '{}')) as BackupStatus

/** Waits until the spool is empty (every segment in the store), and says how long that took. */
async function drained(server: TestServer, ms = 20 * 60_000): Promise<number> {
  const started = performance.now()
  const spool = join(server.dataDir, 'backup-spool')
  for (const end = Date.now() + ms; Date.now() < end; await sleep(500)) {
    const waiting = execFileSync('sh', ['-c', `ls ${spool} | grep -c '^[0-9A-F]\\{24\\}$' || true`])
    if (waiting.toString().trim() === '0') return performance.now() - started
  }
  throw new Error(`the spool did not drain in ${ms / 1000} s`)
}

function runRow(name: string, run: MeasuredRun, size: string): Row {
  const failed = run.code === 0 ? '' : `, exit ${run.code}: ${run.stderr.trim().slice(-160)}`
  return {
    metric: name,
    value: `${seconds(run.ms)}, ${size}, peak RSS ${run.peakRssMiB.toFixed(0)} MiB${failed}`,
    target: 'reported',
    ...(failed ? { ok: false } : {}),
  }
}

export async function backupFigures(
  rows: number,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const label = rows === 1_000_000 ? '1M' : rows.toLocaleString('en-US')
  const store = await emptyDataDir()
  const work = await emptyDataDir()
  track(() => store.cleanup())
  track(() => work.cleanup())
  const env = {
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_MINUTE: '0',
    BACKUP_URL: `file://${store.dir}`,
    BACKUP_KEY: randomBytes(32).toString('base64'),
  }
  let server = await startTestServer({ env, bundled: true })
  track(() => server.cleanup())
  const ownerUrl = await runningClusterUrl(server.dataDir)
  if (!ownerUrl) throw new Error(`no running cluster under ${server.dataDir}`)
  log(`Backup: loading ${label} signups, with continuous backup to ${env.BACKUP_URL}`)
  const list = await loadList(ownerUrl, rows)
  const walMs = await drained(server)
  const cluster = bytesIn(join(server.dataDir, 'postgres'))

  log(`Backup: backup --to DIR at ${label}, beside the running server`)
  const copy = join(work.dir, 'copy')
  const backup = await runMeasured(server.env, ['backup', '--to', copy])
  const copyBytes = bytesIn(copy)
  log(`Backup: restore --from DIR onto a new DATA_DIR`)
  const fromCopy = await emptyDataDir()
  track(() => fromCopy.cleanup())
  const restore = await runMeasured({ DATA_DIR: fromCopy.dir }, ['restore', '--from', copy])
  await fromCopy.cleanup()
  await rm(copy, { recursive: true, force: true })

  // The store's base at this size: a spool made anew asks for a base at the next start.
  log('Backup: the store takes a base at this size (the spool made anew)')
  const before = (await statusOf(server.dataDir)).lastBaseAt
  await server.stop()
  await rm(join(server.dataDir, 'backup-spool'), { recursive: true, force: true })
  const restarted = performance.now()
  server = await startTestServer({ env, dataDir: server.dataDir, bundled: true })
  track(() => server.cleanup())
  for (let end = Date.now() + 20 * 60_000; (await statusOf(server.dataDir)).lastBaseAt === before; ) {
    if (Date.now() > end) throw new Error('no new base reached the store')
    await sleep(500)
  }
  const baseMs = performance.now() - restarted
  const baseBytes = bytesIn(join(store.dir, 'base'))
  const storeBytes = bytesIn(store.dir)
  log('Backup: restore --from file://… (that base and the WAL since) onto a new DATA_DIR')
  const fromStore = await emptyDataDir()
  track(() => fromStore.cleanup())
  const storeRestore = await runMeasured({ ...env, DATA_DIR: fromStore.dir }, [
    'restore',
    '--from',
    env.BACKUP_URL,
  ])
  await fromStore.cleanup()
  await server.cleanup()

  const figures = {
    rows,
    loadMs: list.loadMs,
    walMs,
    cluster,
    backup,
    copyBytes,
    restore,
    baseMs,
    baseBytes,
    storeBytes,
    storeRestore,
  }
  return {
    results: figures,
    rows: [
      {
        metric: `${label}: the cluster on disk; the load's WAL into the store`,
        value: `${mib(cluster)}; ${seconds(walMs)} after the load`,
        target: 'reported',
      },
      runRow(`${label}: backup --to DIR (beside the server)`, backup, mib(copyBytes)),
      runRow(`${label}: restore --from DIR (onto an empty DATA_DIR)`, restore, `${mib(copyBytes)} read`),
      {
        metric: `${label}: the store's base (start to stored; sealed, gzip)`,
        value: `${seconds(baseMs)}, ${mib(baseBytes)}; the store ${mib(storeBytes)}`,
        target: 'reported',
      },
      runRow(
        `${label}: restore --from file://… (base and WAL since)`,
        storeRestore,
        `${mib(storeBytes)} in the store`,
      ),
    ],
  }
}
