import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { withServerDatabase } from '../harness/server-database'
import { startStudioProcess } from '../harness/studio-process'
import { startTestServer } from '../harness/test-server'
import { runCli } from '../harness/waitlist-cli'
import { buildIfStale } from '../server/boot/build-if-stale'
import { toCsv } from '../server/waitlist/admin/csv'

/**
 * Regenerates docs/studio.png, the studio's picture in docs/cohort.md, 1280 px wide in the light
 * scheme: the table of people sorted by organisation, filtered by a tag and a role, two rows
 * ticked: `npx tsx scripts/studio-screenshot.ts`.
 */
const NAMES = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'donald', 'frances', 'ken', 'radia', 'leslie']
const DOMAINS = ['example.com', 'example.org', 'uni.example.edu']
const SOURCES = ['direct', 'launch-post', 'news.ycombinator.com', 'mcp', '(api)']
const ROLES = ['Research', 'Engineering', 'Product', 'Founder or executive', 'Other']
const ORGANISATIONS = ['Example University', 'Acme Robotics', 'Northwind Labs', 'Institute of Examples']
const USES = [
  'Evaluating tool-calling agents on our internal support tickets, with long multi-turn sessions',
  'Long-horizon planning benchmarks',
  'Replacing a brittle retrieval pipeline in our lab notebook assistant',
]

/** Sample signups over the last 30 days, more of them lately, the same on every run. */
function sampleRows(): string[][] {
  const rows: string[][] = []
  const now = new Date()
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  for (let day = 29; day >= 0; day--) {
    const count = Math.round(((30 - day) / 30) * 5 + ((day * 7) % 3))
    for (let n = 0; n < count; n++) {
      const name = NAMES[(day + n) % NAMES.length]
      const domain = DOMAINS[(day * 3 + n) % DOMAINS.length]
      const created = new Date(today - day * 86_400_000 + (1 + n) * 3_600_000 + day * 61_000)
      rows.push([`${name}.${30 - day}${n}@${domain}`, created.toISOString()])
    }
  }
  return rows
}

/**
 * Sources and answers as signups through the site, agents and the confirmation page leave them,
 * the page's visits as the server counts them, and two of the first invitees who have since
 * redeemed their code in the beta.
 */
async function addDetails(server: Parameters<typeof withServerDatabase>[0]) {
  await withServerDatabase(server, async (db) => {
    await db.query('update public.waitlist set source = ($1::text[])[1 + (id / 3) % 5]', [SOURCES])
    await db.query(
      `insert into private.source_counts (day, source, visits, visitors, signups)
       select created_at::date, source, 4 * count(*) + 3, 3 * count(*) + 2, count(*)
         from public.waitlist where source in ('direct', 'launch-post', 'news.ycombinator.com')
        group by 1, 2`,
    )
    await db.query(
      `insert into private.entry_answers (waitlist_id, answers)
       select id, jsonb_strip_nulls(jsonb_build_object('role', ($1::text[])[1 + (id / 2) % 5],
                'organisation', ($2::text[])[1 + (id / 10) % 4], 'use_case', ($3::text[])[1 + (id / 5) % 5]))
         from public.waitlist where id % 3 <> 0`,
      [ROLES, ORGANISATIONS, USES],
    )
    // The team's marks: a shortlist among the researchers, a few to ask again, a note.
    await db.query(
      `insert into private.entry_marks (waitlist_id, tags, note)
       select id, case when id % 4 = 0 then array['ask-again', 'shortlist'] else array['shortlist'] end,
              case when id % 8 = 0 then 'Met at the workshop; wants the agents track' end
         from public.waitlist where id % 2 = 0`,
    )
    await db.query(
      `with joined as (
         update private.entry_status set status = 'joined', joined_at = invited_at + interval '2 hours'
          where waitlist_id in (select waitlist_id from private.entry_status where status = 'invited'
                                 order by waitlist_id limit 2)
         returning waitlist_id
       )
       update private.mail_outbox set redeemed_at = now() where waitlist_id in (select waitlist_id from joined)`,
    )
  })
}

await buildIfStale(console.log)
// Running: the studio reads the running server's database (it never starts the cluster itself).
const server = await startTestServer()
const work = await mkdtemp(join(tmpdir(), 'studio-screenshot-'))
try {
  const rows = sampleRows()
  const file = join(work, 'sample.csv')
  await writeFile(file, toCsv(['email', 'created_at'], rows))
  for (const args of [
    ['import', file],
    ['invite', '--next', '6'],
  ]) {
    const result = await runCli(server.env, ...args)
    if (result.code !== 0) throw new Error(result.stderr)
  }
  await addDetails(server)
  const studio = await startStudioProcess(server.env)
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' })
    const view = new URLSearchParams([
      ['answer', 'role=Research'],
      ['tag', 'shortlist'],
      ['sort', 'answer_organisation'],
      ['order', 'asc'],
    ])
    await page.goto(studio.at(String(view)))
    const list = page.getByRole('region', { name: 'Signups by organisation, A to Z' })
    await list.getByText(/ matching$/).waitFor()
    await page.getByText('All sources').waitFor()
    for (const row of [1, 2]) await list.getByRole('row').nth(row).getByRole('checkbox').check()
    // The table of people, where the cohort is chosen: its filters, its order and its columns.
    await list.screenshot({ path: 'docs/studio.png' })
    console.log(`Wrote docs/studio.png (${rows.length} sample signups)`)
  } finally {
    await browser.close()
    await studio.stop()
  }
} finally {
  await server.cleanup()
  await rm(work, { recursive: true, force: true })
}
