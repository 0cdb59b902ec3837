import { Writable } from 'node:stream'
import { runMeasured } from '../harness/measured-cli'
import { TEST_BETA_URL } from '../harness/test-server'
import { listEntries } from '../owner/cli/list'
import { PAGE_SIZE } from '../owner/studio-server/studio-app'
import { openPostgres } from '../server/db/postgres-driver'
import { readFilter } from '../server/waitlist/admin/entry-filter'
import { pageEntries } from '../server/waitlist/admin/entry-pages'
import { median } from './stats'
import type { Row } from './table'

/** Issue 43's bounds at a million rows. */
const QUERY_MS = 300
const INVITE_MS = 5_000
const RUNS = 5
const BATCH = 1_000

/** The cohort the figures choose: waiting researchers, the issue's example. */
const COHORT = ['--status', 'waiting', '--answer', 'role=Research']

/** One warm-up, then the median and the slowest of RUNS, in milliseconds, and the last result. */
async function timed<T>(work: () => Promise<T>): Promise<{ medianMs: number; maxMs: number; result: T }> {
  let result = await work()
  const runs: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    result = await work()
    runs.push(performance.now() - started)
  }
  return { medianMs: median(runs), maxMs: Math.max(...runs), result }
}

/** Where the list's lines go: nowhere, as fast as they come. */
const nullSink = () => new Writable({ write: (_chunk, _encoding, done) => done() })

const ms = (value: number) => `${value.toFixed(0)} ms`
const count = (value: number) => value.toLocaleString('en-US')

/**
 * The owner choosing a cohort on the loaded list (million-data.ts: a fifth answered, roles spread
 * over the five choices): `list --status waiting --answer role=Research` as its query alone (the
 * COPY the command streams, to a sink, without the process's start), the studio's first page with
 * the same filter (the function its /api/entries calls), and `invite --next 1000` of that cohort as
 * the owner runs it, from start to exit. Run last: the invite changes the list.
 */
export async function cohortFigures(
  env: Record<string, string>,
  ownerUrl: string,
  label: string,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const read = readFilter({ statuses: ['waiting'], answers: ['role=Research'] })
  if ('problem' in read) throw new Error(read.problem)
  const { filter } = read
  const db = await openPostgres(ownerUrl, 2)
  try {
    log(`${label}: list ${COHORT.join(' ')}, the studio's filtered page, invite --next ${BATCH} of them`)
    const list = await timed(() => listEntries(db, filter, nullSink()))
    const page = await timed(() => pageEntries(db, { filter, limit: PAGE_SIZE }))
    const cli = await runMeasured(env, ['list', ...COHORT])
    const invite = await runMeasured({ ...env, BETA_URL: TEST_BETA_URL }, [
      'invite',
      '--next',
      String(BATCH),
      '--answer',
      'role=Research',
    ])
    const [batch] = await db.query<{ size: number }>(
      'select size from private.invite_batches order by id desc limit 1',
    )
    const queued = batch?.size ?? 0
    const rows: Row[] = [
      {
        metric: `${label}: list ${COHORT.join(' ')}, its query (COPY to a sink)`,
        value: `${ms(list.medianMs)} median, ${ms(list.maxMs)} max of ${RUNS}; ${count(list.result)} lines`,
        target: `<= ${QUERY_MS} ms`,
        ok: list.medianMs <= QUERY_MS,
      },
      {
        metric: `${label}: the same, the CLI from start to exit`,
        value: `${(cli.ms / 1000).toFixed(1)} s, peak RSS ${cli.peakRssMiB.toFixed(0)} MiB`,
        target: '',
        ...(cli.code === 0 ? {} : { ok: false }),
      },
      {
        metric: `${label} studio: first page, status waiting and role Research (pageEntries)`,
        value: `${ms(page.medianMs)} median, ${ms(page.maxMs)} max of ${RUNS}; ${count(page.result.matching)} match`,
        target: `<= ${QUERY_MS} ms`,
        ok: page.medianMs <= QUERY_MS,
      },
      {
        metric: `${label}: invite --next ${count(BATCH)} --answer role=Research (the CLI, start to exit)`,
        value: `${(invite.ms / 1000).toFixed(1)} s, ${count(queued)} queued${invite.code === 0 ? '' : `, exit ${invite.code}: ${invite.stderr.trim().slice(0, 120)}`}`,
        target: `<= ${INVITE_MS / 1000} s`,
        ok: invite.code === 0 && queued === BATCH && invite.ms <= INVITE_MS,
      },
    ]
    return { rows, results: { list, page: { ...page, result: page.result.matching }, cli, invite, queued } }
  } finally {
    await db.close()
  }
}
