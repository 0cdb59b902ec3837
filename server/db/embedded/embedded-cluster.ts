import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { asAccount, binariesFor, checkAccountReaches } from './account-access'
import { findPostgresBinaries } from './binaries'
import { clusterAccount } from './cluster-account'
import { clusterFiles, clusterPassword, connectionUrl, readPostmasterPid } from './cluster-files'
import { initCluster, isInitialized } from './init-cluster'
import { freePort, portIsFree } from './ports'
import { isProcessAlive, processCommand } from './process-alive'

export interface EmbeddedCluster {
  url: string
  pid: number
  /** Settles when the postmaster exits, for whatever reason. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Fast shutdown: open transactions roll back, a checkpoint is written, the postmaster exits. */
  stop(): Promise<void>
}

/**
 * The settings the durability promise rests on, given on the command line so that no
 * postgresql.conf or ALTER SYSTEM can weaken them: every acknowledged commit is on disk.
 */
export const DURABILITY_SETTINGS = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' } as const

/** The port used last time, so a saved `url` keeps working, unless something else took it. */
async function choosePort(portFile: string): Promise<number> {
  const previous = Number((await readFile(portFile, 'utf8').catch(() => '')).trim())
  const port = previous > 0 && (await portIsFree(previous)) ? previous : await freePort()
  if (port !== previous) await writeFile(portFile, `${port}\n`)
  return port
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (!isProcessAlive(pid)) return true
  return !isProcessAlive(pid)
}

/**
 * A postmaster still running on this cluster while we hold DATA_DIR's lock was left by a server
 * that died without stopping it (kill -9, the OOM killer): stop it cleanly before starting anew.
 * A postmaster.pid naming a dead process, a zombie or someone else's process is merely stale.
 */
async function clearLeftovers(clusterDir: string, log: (message: string) => void) {
  const holder = await readPostmasterPid(clusterDir)
  if (!holder) return
  const command = processCommand(holder.pid)
  // Where there is no /proc (macOS), a live pid in this cluster's own lock file is taken as ours.
  const ours = isProcessAlive(holder.pid) && (command === undefined || command.includes(clusterDir))
  if (ours) {
    log(
      `PostgreSQL (pid ${holder.pid}) was left running by a server that stopped abruptly; shutting it down cleanly first.`,
    )
    const steps: [NodeJS.Signals, number][] = [
      ['SIGINT', 30_000],
      ['SIGQUIT', 5_000],
      ['SIGKILL', 5_000],
    ]
    for (const [signal, ms] of steps) {
      try {
        process.kill(holder.pid, signal)
      } catch {}
      if (await waitForExit(holder.pid, ms)) break
    }
  }
  await rm(`${clusterDir}/postmaster.pid`, { force: true })
}

async function logTail(logFile: string, from: number): Promise<string> {
  const text = await readFile(logFile, 'utf8').catch(() => '')
  return text.slice(from).trim().split('\n').slice(-15).join('\n')
}

/** Waits until the postmaster reports "ready" in postmaster.pid, or fails with its own words. */
async function waitUntilReady(child: ChildProcess, clusterDir: string, logFile: string, logStart: number) {
  let exit: string | undefined
  child.once('exit', (code, signal) => {
    exit = signal ? `signal ${signal}` : `exit code ${code}`
  })
  for (const end = Date.now() + 120_000; Date.now() < end; await sleep(20)) {
    if (exit) break
    const status = await readPostmasterPid(clusterDir)
    if (status && status.pid === child.pid && status.status === 'ready') return
  }
  child.kill('SIGQUIT')
  throw new Error(
    `PostgreSQL did not start (${exit ?? 'no answer in 120 s'}). Its log (${logFile}) says:\n` +
      (await logTail(logFile, logStart)),
  )
}

/** Starts (creating on first use) the cluster under DATA_DIR/postgres. The caller holds DATA_DIR's lock. */
export async function startEmbeddedCluster(
  dataDir: string,
  log: (message: string) => void,
): Promise<EmbeddedCluster> {
  const files = clusterFiles(dataDir)
  await mkdir(files.root, { recursive: true })
  const account = clusterAccount()
  if (account?.created)
    log(`Created the system account "${account.name}" to run PostgreSQL, which refuses to run as root.`)
  if (account) log(`Running PostgreSQL as the unprivileged account "${account.name}" (uid ${account.uid}).`)
  const binaries = await binariesFor(findPostgresBinaries(), account, log)
  checkAccountReaches(files.root, binaries, account)
  const password = await clusterPassword(files.password)
  if (!isInitialized(files.cluster)) {
    log(`Creating the database cluster in ${files.cluster}...`)
    await initCluster({ binaries, clusterDir: files.cluster, password, account })
  }
  await clearLeftovers(files.cluster, log)
  const port = await choosePort(files.port)

  const logHandle = await open(files.log, 'a', 0o600)
  const logStart = (await logHandle.stat()).size
  const settings = Object.entries({
    ...DURABILITY_SETTINGS,
    listen_addresses: '127.0.0.1',
    // TCP on loopback only, with a password; no socket file in /tmp for other local users to find.
    unix_socket_directories: '',
  }).flatMap(([name, value]) => ['-c', `${name}=${value}`])
  const child = spawn(binaries.postgres, ['-D', files.cluster, '-p', String(port), ...settings], {
    ...asAccount(account),
    cwd: files.root,
    // Its own process group: a Ctrl-C in the terminal reaches the server, which drains its requests
    // and then stops PostgreSQL, instead of both at once.
    detached: true,
    stdio: ['ignore', logHandle.fd, logHandle.fd],
  })
  await logHandle.close()
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal })) as EmbeddedCluster['exited']
  // If this process exits without stop() (an uncaught error), PostgreSQL goes down cleanly with it.
  const stopOnExit = () => child.exitCode === null && child.kill('SIGINT')
  process.on('exit', stopOnExit)
  exited.then(() => process.off('exit', stopOnExit))
  try {
    await waitUntilReady(child, files.cluster, files.log, logStart)
  } catch (error) {
    await exited
    throw error
  }
  return {
    url: connectionUrl(password, port),
    pid: child.pid ?? 0,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGINT')
      const timeout = sleep(30_000).then(() => 'timeout' as const)
      if ((await Promise.race([exited, timeout])) === 'timeout') {
        child.kill('SIGQUIT')
        await exited
      }
    },
  }
}

/**
 * The URL of the cluster a running server started, for tools that work beside it (the CLI), or
 * undefined when no server runs it.
 */
export async function runningClusterUrl(dataDir: string): Promise<string | undefined> {
  const files = clusterFiles(dataDir)
  const holder = await readPostmasterPid(files.cluster)
  if (!holder || holder.status !== 'ready' || !isProcessAlive(holder.pid)) return undefined
  if (!existsSync(files.password)) return undefined
  return connectionUrl(await clusterPassword(files.password), holder.port)
}
