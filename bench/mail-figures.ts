import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { once } from 'node:events'
import { join } from 'node:path'
import { bundleServer, SERVER_DIST_DIR } from '../build/server-bundle'
import { watchOutput } from '../harness/child-output'
import { freshDataDir } from '../harness/data-dir'
import { type SmtpSink, startSmtpSink } from '../harness/smtp-sink'
import { startTestServer } from '../harness/test-server'
import { ROOT } from '../server/base/paths'
import type { Database } from '../server/db/database'
import { openDatabase } from '../server/db/open-database'
import { inviteNext } from '../server/waitlist/invite/invitations'
import { processMemory } from './process-memory'
import type { Row, Track } from './table'

const MESSAGES = 10_000
const RSS_BOUND_MIB = 150

/** A server for the run: its pid and data dir, and how to stop it. */
interface MailServer {
  pid: number
  dataDir: string
  stop(): Promise<unknown>
}

/** A cleanup that runs once, whether the section ends or the bench is interrupted first. */
function runOnce(fn: () => Promise<unknown>): () => Promise<unknown> {
  let done: Promise<unknown> | undefined
  return () => {
    done ??= fn()
    return done
  }
}

/** The server as the tests run it, from its sources through tsx. */
async function tsxServer(env: Record<string, string>): Promise<MailServer> {
  const server = await startTestServer({ env })
  return { pid: server.process.pid ?? 0, dataDir: server.dataDir, stop: () => server.cleanup() }
}

/** The server as `npm start` runs it: bundled by esbuild at the start, then plain Node. */
async function npmStartServer(env: Record<string, string>): Promise<MailServer> {
  const server = await startTestServer({ env, bundled: true })
  return { pid: server.process.pid ?? 0, dataDir: server.dataDir, stop: () => server.cleanup() }
}

/** The server as the container image runs it: `node server-dist/main.mjs`, no tsx. */
async function bundledServer(env: Record<string, string>): Promise<MailServer> {
  await bundleServer()
  const data = await freshDataDir()
  const child = spawn(process.execPath, [join(SERVER_DIST_DIR, 'main.mjs')], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', DATA_DIR: data.dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  await watchOutput(child, /Serving (http:\/\/\S+)/, 60_000, 'the bundled server').found
  const exited = once(child, 'exit')
  return {
    pid: child.pid ?? 0,
    dataDir: data.dir,
    async stop() {
      child.kill('SIGTERM')
      await exited
      await data.cleanup()
    },
  }
}

/** A DKIM key for the signed run: RSA 2048, as a lab would publish (docs/deliverability.md). */
function signingEnv(): Record<string, string> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return {
    DKIM_SELECTOR: 'bench',
    DKIM_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  }
}

const SIGNED = 'npm start, DKIM-signed'

/**
 * 10,000 invitations through the real server to a local SMTP sink (smtp-server, counting only),
 * with no rate cap (MAIL_PER_MINUTE=0): messages per second from the queueing to the last one
 * accepted, and the Node server's RSS idle and at its peak (sampled every 20 ms), against the
 * 150 MiB bound; as `npm start` runs the server, as the container image does, and as the tests do
 * (through tsx, for comparison: the bound is the first two's). Then `npm start` signing each
 * message with DKIM (issue 66), whose rate must stay within 10% of the unsigned run's, the same hour.
 */
export async function mailFigures(
  serverEnv: Record<string, string>,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const rows: Row[] = []
  const results: Record<string, MailRun> = {}
  for (const [name, start, bounded, extra] of [
    ['npm start', npmStartServer, true, {}],
    ['the image', bundledServer, true, {}],
    ['the tests (tsx)', tsxServer, false, {}],
    [SIGNED, npmStartServer, true, signingEnv()],
  ] as const) {
    const sink = await startSmtpSink({ countOnly: true })
    const closeSink = runOnce(() => sink.close())
    track(closeSink)
    const env = {
      ...serverEnv,
      SMTP_URL: sink.url,
      MAIL_FROM: 'Bench <bench@bench.example>',
      MAIL_PER_MINUTE: '0',
      ...extra,
    }
    const server = await start(env)
    const stopServer = runOnce(() => server.stop())
    track(stopServer)
    log(`Mail, ${name}: ${MESSAGES} invitations to a local SMTP sink`)
    try {
      const figures = await measure(server, sink)
      results[name] = figures
      rows.push(...rowsOf(name, figures, bounded))
    } finally {
      await stopServer()
      await closeSink()
    }
  }
  rows.push(signingRow(results['npm start'], results[SIGNED]))
  return { rows, results }
}

/** The signed run's rate against the unsigned one's: signing may cost at most 10%. */
function signingRow(unsigned: MailRun | undefined, signed: MailRun | undefined): Row {
  const ratio = unsigned && signed ? signed.perSecond / unsigned.perSecond : 0
  const perMessageMs = unsigned && signed ? ((signed.seconds - unsigned.seconds) * 1000) / MESSAGES : 0
  return {
    metric: 'Mail, DKIM signing: signed rate / unsigned rate (npm start)',
    value: `${(ratio * 100).toFixed(0)}% (${perMessageMs.toFixed(2)} ms a message more)`,
    target: '>= 90%',
    ok: ratio >= 0.9,
  }
}

interface MailRun {
  seconds: number
  perSecond: number
  idleRssMiB: number
  peakRssMiB: number
}

async function measure(server: MailServer, sink: SmtpSink): Promise<MailRun> {
  const database = await openDatabase({ dataDir: server.dataDir, purpose: 'bench', besideServer: true })
  try {
    return await sendAll(database.db, server.pid, () => sink.received.length)
  } finally {
    await database.close()
  }
}

async function sendAll(db: Database, pid: number, received: () => number): Promise<MailRun> {
  const emails = Array.from({ length: MESSAGES }, (_, i) => `bench.${i}@bench.example`)
  await db.query('insert into public.waitlist (email) select unnest($1::text[])', [emails])
  const idleRssMiB = processMemory(pid).rssMiB
  let peakRssMiB = idleRssMiB
  const sampler = setInterval(() => {
    peakRssMiB = Math.max(peakRssMiB, processMemory(pid).rssMiB)
  }, 20)
  const started = performance.now()
  await inviteNext(db, MESSAGES, { resend: false, messageDomain: 'bench.example' })
  while (received() < MESSAGES) await new Promise((resolve) => setTimeout(resolve, 20))
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  return { seconds, perSecond: MESSAGES / seconds, idleRssMiB, peakRssMiB }
}

function rowsOf(name: string, run: MailRun, bounded: boolean): Row[] {
  return [
    {
      metric: `Mail, ${name}: ${MESSAGES} invitations, no rate cap`,
      value: `${run.perSecond.toFixed(0)} messages/s (${run.seconds.toFixed(1)} s)`,
      target: '',
    },
    {
      metric: `Mail, ${name}: Node server RSS idle / peak`,
      value: `${run.idleRssMiB.toFixed(0)} / ${run.peakRssMiB.toFixed(0)} MiB`,
      ...(bounded
        ? { target: `<= ${RSS_BOUND_MIB} MiB`, ok: run.peakRssMiB <= RSS_BOUND_MIB }
        : { target: '' }),
    },
  ]
}
