import type { Database } from '../server/db/database'
import { openDatabase } from '../server/db/open-database'
import { inviteNext } from '../server/waitlist/invitations/queue-invitations'
import { startSmtpSink } from '../tests/support/smtp-sink'
import { startTestServer } from '../tests/support/test-server'
import { processMemory } from './process-memory'
import type { Row, Track } from './table'

const MESSAGES = 10_000

/** A cleanup that runs once, whether the section ends or the bench is interrupted first. */
function once(fn: () => Promise<unknown>): () => Promise<unknown> {
  let done: Promise<unknown> | undefined
  return () => {
    done ??= fn()
    return done
  }
}
const RSS_BOUND_MIB = 150

/**
 * 10,000 invitations through the real server to a local SMTP sink (smtp-server, counting only),
 * with no rate cap (MAIL_PER_MINUTE=0): messages per second from the queueing to the last one
 * accepted, and the Node server's peak RSS meanwhile (sampled every 50 ms), against the 150 MiB bound.
 */
export async function mailFigures(
  serverEnv: Record<string, string>,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const sink = await startSmtpSink({ countOnly: true })
  const closeSink = once(() => sink.close())
  track(closeSink)
  const server = await startTestServer({
    env: { ...serverEnv, SMTP_URL: sink.url, MAIL_FROM: 'Bench <bench@bench.example>', MAIL_PER_MINUTE: '0' },
  })
  const stopServer = once(() => server.cleanup())
  track(stopServer)
  const pid = server.process.pid ?? 0
  const database = await openDatabase({ dataDir: server.dataDir, purpose: 'bench', besideServer: true })
  try {
    return await measure(database.db, pid, () => sink.received.length, log)
  } finally {
    await database.close()
    await stopServer()
    await closeSink()
  }
}

async function measure(
  db: Database,
  pid: number,
  received: () => number,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const emails = Array.from({ length: MESSAGES }, (_, i) => `bench.${i}@bench.example`)
  await db.query('insert into public.waitlist (email) select unnest($1::text[])', [emails])
  const idleMiB = processMemory(pid).rssMiB
  let peakMiB = idleMiB
  const sampler = setInterval(() => {
    peakMiB = Math.max(peakMiB, processMemory(pid).rssMiB)
  }, 50)
  log(`Mail: queueing ${MESSAGES} invitations, the server sending them to a local SMTP sink`)
  const started = performance.now()
  await inviteNext(db, MESSAGES, { resend: false, messageDomain: 'bench.example' })
  while (received() < MESSAGES) await new Promise((resolve) => setTimeout(resolve, 50))
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  peakMiB = Math.max(peakMiB, processMemory(pid).rssMiB)
  const perSecond = MESSAGES / seconds
  return {
    rows: [
      {
        metric: `Mail: ${MESSAGES} invitations, no rate cap`,
        value: `${perSecond.toFixed(0)} messages/s (${seconds.toFixed(1)} s)`,
        target: '',
      },
      {
        metric: 'Mail: Node server RSS idle / peak',
        value: `${idleMiB.toFixed(0)} / ${peakMiB.toFixed(0)} MiB`,
        target: `<= ${RSS_BOUND_MIB} MiB`,
        ok: peakMiB <= RSS_BOUND_MIB,
      },
    ],
    results: { messages: MESSAGES, seconds, perSecond, idleRssMiB: idleMiB, peakRssMiB: peakMiB },
  }
}
