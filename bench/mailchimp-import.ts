import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runMeasured } from '../harness/measured-cli'
import { startTestServer } from '../harness/test-server'
import { timeBareStatement } from './bare-load'
import type { Row, Track } from './table'

/**
 * Issue 64's bound: a Mailchimp audience export of `rows` members (its subscribed file, every
 * column Mailchimp writes) imported within 1.3× a bare load of the same rows into the same tables:
 * the entry, its name and first name, its confirmation time and its tags. The bare load reads the
 * file into an unlogged table first, untimed; what is timed is the inserts, which import cannot do
 * with less. Import does more besides: it reads the dates, drops Mailchimp's bookkeeping, records
 * the consent and the tags' history.
 */
const IMPORT_RATIO = 1.3
const IMPORT_MIB = 300

const HEADER =
  'Email Address,First Name,Last Name,MEMBER_RATING,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,CONFIRM_IP,LATITUDE,' +
  'LONGITUDE,GMTOFF,DSTOFF,TIMEZONE,CC,REGION,LAST_CHANGED,LEID,EUID,NOTES,TAGS'

/** One member as Mailchimp writes it: times in UTC without a zone, tags quoted one by one. */
function member(n: number): string {
  const when = new Date(Date.UTC(2024, 0, 1) + n * 20_000).toISOString().slice(0, 19).replace('T', ' ')
  const tags = n % 3 === 0 ? '"""early"",""conference"""' : '"""early"""'
  return (
    `member.${n}@example${n % 997}.com,First${n % 300},Last${n % 700},2,"${when}",,"${when}",` +
    `203.0.113.${n % 250},52.37,4.89,1,2,Europe/Amsterdam,NL,NH,"${when}",${100_000_000 + n},e${n},,${tags}`
  )
}

async function writeExport(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path)
  out.write(`${HEADER}\r\n`)
  for (let n = 0; n < rows; n++) if (!out.write(`${member(n)}\r\n`)) await once(out, 'drain')
  out.end()
  await once(out, 'finish')
}

/** The same rows, already in an unlogged table, put into the same tables by plain INSERT … SELECT. */
function timeBareMailchimpLoad(file: string): Promise<number> {
  const columns = HEADER.split(',').map((_, index) => `c${index}`)
  return timeBareStatement(
    file,
    columns,
    `with added as (
         insert into public.waitlist (email, created_at)
         select c0, (c4 || 'Z')::timestamptz from bare_rows returning id, email::text as email
       ),
       joined as (select added.id, bare_rows.* from added join bare_rows on bare_rows.c0 = added.email),
       named as (insert into private.entry_names (waitlist_id, name, given_name)
                 select id, c1 || ' ' || c2, c1 from joined),
       confirmed as (insert into private.entry_status (waitlist_id, status, confirmed_at)
                     select id, 'waiting', (c6 || 'Z')::timestamptz from joined)
       insert into private.entry_marks (waitlist_id, tags)
       select id, string_to_array(replace(c19, '"', ''), ',') from joined`,
  )
}

/** The Mailchimp-shaped import against its bare load, and its peak memory. */
export async function mailchimpImportFigures(
  rows: number,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const label = rows === 1_000_000 ? '1M' : rows.toLocaleString('en-US')
  const work = await mkdtemp(join(tmpdir(), 'bench-mailchimp-'))
  track(() => rm(work, { recursive: true, force: true }))
  const file = join(work, 'subscribed_members_export.csv')
  log(`${label} Mailchimp members: writing the export`)
  await writeExport(file, rows)
  log(`${label} Mailchimp members: a bare load of the same rows`)
  const bareMs = await timeBareMailchimpLoad(file)
  const target = await startTestServer({ env: { LOG_LEVEL: 'error' }, bundled: true })
  track(() => target.cleanup())
  log(`${label} Mailchimp members: import`)
  const imported = await runMeasured(target.env, ['import', file])
  await target.cleanup()
  const ratio = imported.ms / bareMs
  const failed = imported.code === 0 ? '' : `, exit ${imported.code}: ${imported.stderr.trim().slice(0, 120)}`
  return {
    rows: [
      {
        metric: `${label}: import of a Mailchimp export / a bare load of the same rows`,
        value: `${ratio.toFixed(2)}× (${(imported.ms / 1000).toFixed(1)} s / ${(bareMs / 1000).toFixed(1)} s), peak RSS ${imported.peakRssMiB.toFixed(0)} MiB${failed}`,
        target: `<= ${IMPORT_RATIO}×, <= ${IMPORT_MIB} MiB`,
        ok: imported.code === 0 && ratio <= IMPORT_RATIO && imported.peakRssMiB <= IMPORT_MIB,
      },
    ],
    results: { rows, imported, bareLoadMs: bareMs },
  }
}
