import { Writable } from 'node:stream'
import { runMeasured } from '../harness/measured-cli'
import { TEST_BETA_URL } from '../harness/test-server'
import { listEntries } from '../owner/cli/list'
import { PAGE_SIZE } from '../owner/studio-server/studio-app'
import type { Database } from '../server/db/database'
import { openPostgres } from '../server/db/postgres-driver'
import { type EntryFilter, type GivenFilter, readFilter } from '../server/waitlist/admin/entry-filter'
import { pageEntries } from '../server/waitlist/admin/entry-pages'
import { median } from './stats'
import type { Row } from './table'

/** Issue 43's bounds at a million rows. */
const QUERY_MS = 300
const INVITE_MS = 5_000
const RUNS = 5
const BATCH = 1_000
/** `list --json` streams as export does: the whole list within export's bound (million-figures.ts). */
const LIST_JSON_MIB = 200

/** The cohort the figures choose: waiting researchers, issue 43's example. */
const COHORT = ['--status', 'waiting', '--answer', 'role=Research']
/** Issue 50's: the team's shortlist, and of it the .org addresses (a bare suffix: every subdomain). */
const SHORTLIST = ['--tag', 'shortlist']
const MARKED = ['--tag', 'shortlist', '--domain', 'org']

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

/** `list`'s query to its first line: the time from the call to the first bytes it writes. */
async function toFirstLine(db: Database, filter: EntryFilter): Promise<number> {
  const started = performance.now()
  let first: number | undefined
  const sink = new Writable({
    write: (_chunk, _encoding, done) => {
      first ??= performance.now()
      done()
    },
  })
  await listEntries(db, filter, sink)
  return (first ?? performance.now()) - started
}

/** One warm-up, then the median and the slowest of RUNS of a figure the work measures itself. */
async function timedBy(work: () => Promise<number>): Promise<{ medianMs: number; maxMs: number }> {
  await work()
  const runs: number[] = []
  for (let run = 0; run < RUNS; run++) runs.push(await work())
  return { medianMs: median(runs), maxMs: Math.max(...runs) }
}

/** Reads a filter the way the CLI reads its flags. */
function filterOf(given: GivenFilter): EntryFilter {
  const read = readFilter(given)
  if ('problem' in read) throw new Error(read.problem)
  return read.filter
}

const ms = (value: number) => `${value.toFixed(0)} ms`
const count = (value: number) => value.toLocaleString('en-US')

/** The CLI's `invite --next BATCH` with these flags, start to exit, and how many the batch queued. */
async function inviteFigure(env: Record<string, string>, db: Database, flags: string[]) {
  const run = await runMeasured({ ...env, BETA_URL: TEST_BETA_URL }, [
    'invite',
    '--next',
    String(BATCH),
    ...flags,
  ])
  const [batch] = await db.query<{ size: number }>(
    'select size from private.invite_batches order by id desc limit 1',
  )
  return { run, queued: batch?.size ?? 0 }
}

function inviteRow(label: string, flags: string[], invite: Awaited<ReturnType<typeof inviteFigure>>): Row {
  const { run, queued } = invite
  const failed = run.code === 0 ? '' : `, exit ${run.code}: ${run.stderr.trim().slice(0, 120)}`
  return {
    metric: `${label}: invite --next ${count(BATCH)} ${flags.join(' ')} (the CLI, start to exit)`,
    value: `${(run.ms / 1000).toFixed(1)} s, ${count(queued)} queued${failed}`,
    target: `<= ${INVITE_MS / 1000} s`,
    ok: run.code === 0 && queued === BATCH && run.ms <= INVITE_MS,
  }
}

const queryRow = (metric: string, timing: { medianMs: number; maxMs: number }, what = ''): Row => ({
  metric,
  value: `${ms(timing.medianMs)} median, ${ms(timing.maxMs)} max of ${RUNS}${what}`,
  target: `<= ${QUERY_MS} ms`,
  ok: timing.medianMs <= QUERY_MS,
})

/**
 * The owner choosing a cohort on the loaded list (harness/list-rows.ts: a fifth answered, roles spread
 * over the five choices, one in twenty shortlisted): `list --status waiting --answer role=Research`
 * as its query alone (the COPY the command streams, to a sink, without the process's start), the
 * studio's first page with the same filter and sorted by organisation with a role filter (the
 * function its /api/entries calls), `list --tag shortlist` to its first line, and `invite --next
 * 1000` of each cohort as the owner runs it, from start to exit; and `list --json` of every entry, which
 * must stream. Run last: the invites change the list.
 */
export async function cohortFigures(
  env: Record<string, string>,
  ownerUrl: string,
  label: string,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const filter = filterOf({ statuses: ['waiting'], answers: ['role=Research'] })
  const research = filterOf({ answers: ['role=Research'] })
  const byOrganisation = { column: 'answer_organisation', descending: false } as const
  const db = await openPostgres(ownerUrl, 2)
  try {
    log(`${label}: list ${COHORT.join(' ')}, the studio's filtered and sorted pages, list --tag shortlist`)
    const list = await timed(() => listEntries(db, filter, nullSink()))
    const page = await timed(() => pageEntries(db, { filter, limit: PAGE_SIZE }))
    const sorted = await timed(() =>
      pageEntries(db, { filter: research, sort: byOrganisation, limit: PAGE_SIZE }),
    )
    const shortlist = await timedBy(() => toFirstLine(db, filterOf({ tags: ['shortlist'] })))
    const cli = await runMeasured(env, ['list', ...COHORT])
    log(`${label}: list --json, every entry`)
    const json = await runMeasured(env, ['list', '--json'])
    log(`${label}: invite --next ${BATCH} ${COHORT.slice(2).join(' ')}, then ${MARKED.join(' ')}`)
    const invite = await inviteFigure(env, db, COHORT.slice(2))
    const marked = await inviteFigure(env, db, MARKED)
    const rows: Row[] = [
      queryRow(
        `${label}: list ${COHORT.join(' ')}, its query (COPY to a sink)`,
        list,
        `; ${count(list.result)} lines`,
      ),
      {
        metric: `${label}: the same, the CLI from start to exit`,
        value: `${(cli.ms / 1000).toFixed(1)} s, peak RSS ${cli.peakRssMiB.toFixed(0)} MiB`,
        target: '',
        ...(cli.code === 0 ? {} : { ok: false }),
      },
      queryRow(
        `${label} studio: first page, status waiting and role Research (pageEntries)`,
        page,
        `; ${count(page.result.matching)} match`,
      ),
      queryRow(
        `${label} studio: first page sorted by organisation, role Research (pageEntries)`,
        sorted,
        `; ${count(sorted.result.matching)} match`,
      ),
      queryRow(`${label}: list ${SHORTLIST.join(' ')}, its query to the first line`, shortlist),
      {
        metric: `${label}: list --json, every entry (the CLI from start to exit)`,
        value: `${(json.ms / 1000).toFixed(1)} s, peak RSS ${json.peakRssMiB.toFixed(0)} MiB`,
        target: `<= ${LIST_JSON_MIB} MiB`,
        ok: json.code === 0 && json.peakRssMiB <= LIST_JSON_MIB,
      },
      inviteRow(label, COHORT.slice(2), invite),
      inviteRow(label, MARKED, marked),
    ]
    return {
      rows,
      results: {
        list,
        page: { ...page, result: page.result.matching },
        sorted: { ...sorted, result: sorted.result.matching },
        shortlist,
        cli,
        json,
        invite,
        marked,
      },
    }
  } finally {
    await db.close()
  }
}
