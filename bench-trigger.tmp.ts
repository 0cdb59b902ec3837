import { readFileSync } from 'node:fs'
import { migrate } from './server/db/migrate'
import { openPostgres } from './server/db/postgres-driver'
import { setNotificationsEnabled } from './server/notifications/outbox'
import { createDatabase, startPostgres } from './tests/support/postgres-cluster'

const cluster = await startPostgres()
const db = await openPostgres(await createDatabase(cluster, 'bench_trigger'), 4)
await migrate(db)
const sql = readFileSync('supabase/migrations/20261123000000_signup_outbox.sql', 'utf8')
const fn = /create or replace function[\s\S]*?\$\$;/.exec(sql)![0]
const N = 3000
const results: Record<string, number[]> = {}
async function run(label: string, round: number) {
  const t = performance.now()
  const tag = label.replace(/\W+/g, '-')
  for (let i = 0; i < N; i++) await db.runAsRole({ role: 'anon' }, { sql: 'insert into public.waitlist (email) values ($1)', params: [`${tag}.${round}.${i}@example.com`] })
  ;(results[label] ??= []).push(N / ((performance.now() - t) / 1000))
}
await setNotificationsEnabled(db, true)
for (let round = 0; round < 4; round++) {
  await db.exec('alter table public.waitlist disable trigger waitlist_enqueue_signup_delivery')
  await run('no trigger', round)
  await db.exec('alter table public.waitlist enable trigger waitlist_enqueue_signup_delivery')
  await db.exec(fn)
  await run('on, with notify', round)
  await db.exec(fn.replace("perform pg_notify('signup_deliveries', '');", ''))
  await run('on, no notify', round)
  await db.exec('delete from private.signup_deliveries')
}
for (const [label, rates] of Object.entries(results)) console.log(label, rates.slice(1).map((r) => r.toFixed(0)).join(' '))
await db.close()
await cluster.stop()
