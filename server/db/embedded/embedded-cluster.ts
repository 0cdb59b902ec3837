import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { open, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { ensurePrivateDataDir, ownUid } from '../private-data-dir'
import { readSecretFile } from '../secret-file'
import { asAccount, checkAccountReaches } from './account-access'
import { findPostgresBinaries, type PostgresBinaries } from './binaries'
import { type ClusterAccount, clusterAccount } from './cluster-account'
import { clusterFiles, clusterPassword, readPostmasterPid, socketUrl, tcpUrl } from './cluster-files'
import { checkClusterVersion } from './cluster-version'
import { initCluster, isInitialized } from './init-cluster'
import { freePort, portIsFree } from './ports'
import { isClusterPostmaster } from './postmaster-identity'
import { isProcessAlive } from './process-alive'
import { isPrivateSocketDir, prepareSocketDir } from './socket-dir'
import { binariesFor } from './staged-binaries'
import { archiveSettings } from './wal-archiving'

export interface EmbeddedCluster {
  /** The connection string, through the cluster's private Unix socket. */
  url: string
  pid: number
  port: number
  socketDir: string
  /** Settles when the postmaster exits, for whatever reason. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Fast shutdown: open transactions roll back, a checkpoint is written, the postmaster exits. */
  stop(): Promise<void>
}

export interface StartClusterOptions {
  /** The cluster this start replaces after it died: the same port and socket, so connections find it. */
  restartOf?: EmbeddedCluster
  /** Other binaries than the installed package's (tests). */
  binaries?: PostgresBinaries
}

/**
 * The settings the durability promise rests on, given on the command line so that no
 * postgresql.conf or ALTER SYSTEM can weaken them: every acknowledged commit is on disk.
 */
export const DURABILITY_SETTINGS = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' } as const

/** The uid the cluster's processes run as. */
function clusterUid(account: ClusterAccount | undefined): number | undefined {
  return account?.uid ?? ownUid()
}

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
async function clearLeftovers(clusterDir: string, uid: number | undefined, log: (message: string) => void) {
  const holder = await readPostmasterPid(clusterDir)
  if (!holder) return
  if (isClusterPostmaster(holder.pid, clusterDir, uid)) {
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

/**
 * TCP on 127.0.0.1 too, for GUI tools given `npm run waitlist -- url`, unless a restart finds its
 * port taken: then the socket alone, which is all the server itself uses.
 */
async function listenAddresses(port: number, restart: boolean, log: (message: string) => void) {
  if (!restart || (await portIsFree(port))) return '127.0.0.1'
  log(
    `Another program took 127.0.0.1:${port} while PostgreSQL was down; PostgreSQL now listens on its private ` +
      'socket only (the server needs nothing more), and `npm run waitlist -- url` has no TCP address until the next start.',
  )
  return ''
}

type ClusterFiles = ReturnType<typeof clusterFiles>
type Log = (message: string) => void

/** Starts (creating on first use) the cluster under DATA_DIR/postgres. The caller holds DATA_DIR's lock. */
export async function startEmbeddedCluster(
  dataDir: string,
  log: Log,
  options: StartClusterOptions = {},
): Promise<EmbeddedCluster> {
  const files = clusterFiles(await ensurePrivateDataDir(dataDir))
  const account = clusterAccount()
  if (account?.created)
    log(`Created the system account "${account.name}" to run PostgreSQL, which refuses to run as root.`)
  if (account && !options.restartOf)
    log(`Running PostgreSQL as the unprivileged account "${account.name}" (uid ${account.uid}).`)
  const binaries = await binariesFor(options.binaries ?? findPostgresBinaries(), account, files.root, log)
  checkAccountReaches(files.root, binaries, account)
  await checkClusterVersion(files.cluster, binaries, account)
  const password = await clusterPassword(files.password)
  if (!isInitialized(files.cluster)) {
    log(`Creating the database cluster in ${files.cluster}...`)
    await initCluster({ binaries, clusterDir: files.cluster, password, account })
  }
  await clearLeftovers(files.cluster, clusterUid(account), log)
  const restart = options.restartOf
  const port = restart?.port ?? (await choosePort(files.port))
  // Windows has no modes to make a socket directory private: there the cluster stays on TCP alone.
  const sockets = process.platform !== 'win32'
  const socketDir = sockets
    ? await prepareSocketDir({ preferred: files.socket, port, account, log, reuse: restart?.socketDir })
    : ''
  const listenOn = await listenAddresses(port, restart !== undefined, log)
  const postgres = await spawnPostgres({ binaries, account, files, port, socketDir, listenOn })
  return {
    url: sockets ? socketUrl(password, socketDir, port) : tcpUrl(password, port),
    pid: postgres.child.pid ?? 0,
    port,
    socketDir,
    exited: postgres.exited,
    stop: () => stopPostgres(postgres, socketDir === files.socket ? '' : socketDir),
  }
}

interface Postgres {
  child: ChildProcess
  exited: EmbeddedCluster['exited']
}

/** Runs the postmaster with its log in the cluster's folder, and waits until it accepts connections. */
async function spawnPostgres(setup: {
  binaries: PostgresBinaries
  account: ClusterAccount | undefined
  files: ClusterFiles
  port: number
  socketDir: string
  listenOn: string
}): Promise<Postgres> {
  const { files } = setup
  const logHandle = await open(files.log, 'a', 0o600)
  const logStart = (await logHandle.stat()).size
  const settings = Object.entries({
    ...DURABILITY_SETTINGS,
    ...archiveSettings(files.spool),
    listen_addresses: setup.listenOn,
    unix_socket_directories: setup.socketDir,
    unix_socket_permissions: '0700',
  }).flatMap(([name, value]) => ['-c', `${name}=${value}`])
  const args = ['-D', files.cluster, '-p', String(setup.port), ...settings]
  const child = spawn(setup.binaries.postgres, args, {
    ...asAccount(setup.account),
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
  return { child, exited }
}

/** A fast shutdown, then an immediate one after 30 s; `ownSocketDir`, made for a long DATA_DIR, goes with it. */
async function stopPostgres({ child, exited }: Postgres, ownSocketDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGINT')
    // Unref'd: once PostgreSQL is down, this wait must not keep the process that stopped it alive.
    const timeout = sleep(30_000, undefined, { ref: false }).then(() => 'timeout' as const)
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      child.kill('SIGQUIT')
      await exited
    }
  }
  if (ownSocketDir) await rm(ownSocketDir, { recursive: true, force: true })
}

/** The cluster a running server started, found through its postmaster.pid, once that is proven current. */
async function runningCluster(dataDir: string) {
  const files = clusterFiles(dataDir)
  const holder = await readPostmasterPid(files.cluster)
  if (holder?.status !== 'ready') return undefined
  // PostgreSQL runs only on a cluster directory of its own account's: that names the account.
  const owner = await stat(files.cluster).catch(() => undefined)
  const uid = process.platform === 'win32' ? undefined : owner?.uid
  if (!owner || !isClusterPostmaster(holder.pid, files.cluster, uid)) return undefined
  const password = await readSecretFile(files.password)
  return password ? { holder, password, uid } : undefined
}

/**
 * The URL of the cluster a running server started, through its private socket, for tools that
 * work beside it (the CLI), or undefined when no server runs it.
 */
export async function runningClusterUrl(dataDir: string): Promise<string | undefined> {
  const running = await runningCluster(dataDir)
  if (!running) return undefined
  const { holder, password, uid } = running
  if (process.platform === 'win32') return tcpUrl(password, holder.port)
  if (!(await isPrivateSocketDir(holder.socketDir, uid))) return undefined
  return socketUrl(password, holder.socketDir, holder.port)
}

/**
 * The loopback TCP address of the running cluster, for GUI tools (`npm run waitlist -- url`):
 * undefined when no server runs it, '' when it listens on its socket alone.
 */
export async function runningClusterTcpUrl(dataDir: string): Promise<string | undefined> {
  const running = await runningCluster(dataDir)
  if (!running) return undefined
  return running.holder.listenAddress ? tcpUrl(running.password, running.holder.port) : ''
}
