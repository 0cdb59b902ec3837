import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { GIVE_STATUSES_SQL } from '../../harness/list-statuses'
import { peakRssKiB, runMeasured } from '../../harness/measured-cli'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { openPostgres } from '../../server/db/postgres-driver'

/**
 * Export, import and the studio's download in bounded memory, at a fifth of issue 23's million: each
 * runs on 20,000 rows and on 200,000, each entry with its status, and its peak RSS may grow by
 * little more than the garbage collector's slack between the two (measured: 10, 18 and 24 MiB with
 * two columns; 3-12, 5-7 and 3-10 MiB in two runs with statuses and import reading 64 KB at a time,
 * 2026-11-24). Holding the list, as they once did, the export grew from 119 to 222 MiB and the
 * import from 169 to 486 MiB (2026-11-24). npm run bench measures the million itself.
 */
const SMALL = 20_000
const LARGE = 200_000
const EXPORT_GROWTH_MIB = 30
const IMPORT_GROWTH_MIB = 40
// The studio is a server: more garbage between its collections than a command's.
const DOWNLOAD_GROWTH_MIB = 40

let work: string
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'big-list-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
  await stopBackends()
})

/** A migrated database holding `rows` signups, loaded as the bench does (ties in created_at, statuses). */
async function listOf(rows: number): Promise<Record<string, string>> {
  const url = await sharedPostgresUrl()
  const db = await openPostgres(url, 1)
  try {
    await db.transaction(async (tx) => {
      await tx.exec("set local waitlist.importing = 'on'")
      await tx.query(
        `insert into public.waitlist (email, created_at)
         select substr(md5(i::text), 1, 8) || '.' || i || '@example.com', now() - (i / 3) * interval '23 seconds'
           from generate_series(1, $1::int) as i`,
        [rows],
      )
      await tx.exec(GIVE_STATUSES_SQL)
    })
  } finally {
    await db.close()
  }
  return { DATABASE_URL: url }
}

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** How many entries have a status row, by status. */
async function statusCounts(url: string): Promise<Record<string, number>> {
  const db = await openPostgres(url, 1)
  try {
    const rows = await db.query<{ status: string; n: number }>(
      'select status, count(*)::int as n from private.entry_status group by 1',
    )
    return Object.fromEntries(rows.map((row) => [row.status, row.n]))
  } finally {
    await db.close()
  }
}

/** export, import into an empty database, export again: the peak RSS of each, and whether the files match. */
async function roundTrip(rows: number) {
  const source = await listOf(rows)
  const file = join(work, `${rows}.csv`)
  const exported = await runMeasured(source, ['export', '--out', file])
  const target = { DATABASE_URL: await sharedPostgresUrl() }
  const imported = await runMeasured(target, ['import', file])
  const again = join(work, `${rows}-again.csv`)
  const reExported = await runMeasured(target, ['export', '--out', again])
  for (const run of [exported, imported, reExported]) expect(run, run.stderr).toMatchObject({ code: 0 })
  // The statuses came through too (the bytes say so as well): every kind, as many of each.
  const statuses = await statusCounts(source.DATABASE_URL ?? '')
  expect(Object.keys(statuses).sort()).toEqual(['bounced', 'invited', 'unsubscribed', 'waiting'])
  expect(await statusCounts(target.DATABASE_URL)).toEqual(statuses)
  return { source, exported, imported, same: (await sha256(file)) === (await sha256(again)) }
}

/** The studio's peak RSS once it has served the CSV download of the list in `env`. */
async function studioDownloadPeak(env: Record<string, string>): Promise<number> {
  const studio: StudioProcess = await startStudioProcess(env)
  try {
    const response = await fetch(`${studio.origin}/api/export.csv`, {
      headers: { Authorization: `Bearer ${studio.token}`, 'Sec-Fetch-Site': 'same-origin' },
    })
    expect(response.status).toBe(200)
    await response.arrayBuffer()
    return (peakRssKiB(studio.process.pid ?? 0) ?? Number.NaN) / 1024
  } finally {
    await studio.stop()
  }
}

describe(`a list of ${LARGE.toLocaleString('en')}`, () => {
  it('moves by export and import, byte for byte, in memory that does not grow with the list', async () => {
    const small = await roundTrip(SMALL)
    const large = await roundTrip(LARGE)
    expect(small.same).toBe(true)
    expect(large.same).toBe(true)
    const growth = (pick: (trip: typeof small) => number) => pick(large) - pick(small)
    expect(growth((trip) => trip.exported.peakRssMiB)).toBeLessThan(EXPORT_GROWTH_MIB)
    expect(growth((trip) => trip.imported.peakRssMiB)).toBeLessThan(IMPORT_GROWTH_MIB)
    const downloads = [await studioDownloadPeak(small.source), await studioDownloadPeak(large.source)]
    const mib = (value: number) => `${value.toFixed(0)} MiB`
    console.log(
      `peak RSS from ${SMALL} to ${LARGE} rows: export ${mib(small.exported.peakRssMiB)} to ${mib(large.exported.peakRssMiB)}, ` +
        `import ${mib(small.imported.peakRssMiB)} to ${mib(large.imported.peakRssMiB)}, ` +
        `the studio's download ${mib(downloads[0] ?? 0)} to ${mib(downloads[1] ?? 0)}`,
    )
    expect((downloads[1] ?? 0) - (downloads[0] ?? 0)).toBeLessThan(DOWNLOAD_GROWTH_MIB)
  }, 600_000)
})
