import { existsSync, readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { loadServerEnv } from '../../server/boot/env'
import { lockDataDir } from '../../server/db/data-dir-lock'
import type { Queryable } from '../../server/db/database'
import {
  type BackupManifest,
  layOutBaseBackup,
  readBackupManifest,
  takeBaseBackup,
} from '../../server/db/embedded/base-backup'
import { clusterAccount } from '../../server/db/embedded/cluster-account'
import { clusterFiles } from '../../server/db/embedded/cluster-files'
import { isInitialized } from '../../server/db/embedded/init-cluster'
import { openDatabase } from '../../server/db/open-database'
import { EXIT } from './exit-status'

/** What a copy holds, counted in one statement: what `backup` and `restore` print. */
async function countHoldings(db: Queryable): Promise<Record<string, number>> {
  const [row] = await db.query<Record<string, number>>(
    `select (select count(*) from public.waitlist)::int as entries,
            (select count(*) from private.team_members)::int as "team members",
            (select count(*) from private.team_passkeys)::int as passkeys,
            (select count(*) from private.audit_log)::int as "lines of the record",
            (select count(*) from private.suppressed)::int as "erased addresses"`,
  )
  return row ?? {}
}

const holdings = (holds: Record<string, number>) =>
  Object.entries(holds)
    .map(([what, count]) => `${count.toLocaleString('en-US')} ${what}`)
    .join(', ')

const DATABASE_URL_SET =
  'With DATABASE_URL the database is your provider’s: use its backups (point-in-time recovery), and ' +
  '`npm run waitlist -- export` to move the list itself. `backup` and `restore` copy the embedded cluster under DATA_DIR.'

/**
 * `waitlist backup --to DIR`: a consistent copy of the embedded cluster, everything the lab holds
 * (the list, the team and its passkeys, the record, the erased list, settings and outboxes), taken
 * while the site runs and signups go on (server/db/embedded/base-backup.ts).
 */
export async function backupCommand(to: string | undefined): Promise<number> {
  if (!to) {
    console.error('Usage: npm run waitlist -- backup --to DIR (a new or empty directory)')
    return EXIT.usage
  }
  const env = loadServerEnv()
  if (env.DATABASE_URL) {
    console.error(DATABASE_URL_SET)
    return EXIT.usage
  }
  const dir = resolve(to)
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    console.error(`${dir} is not empty: a backup goes into a new or empty directory, and replaces nothing.`)
    return EXIT.usage
  }
  const files = clusterFiles(env.DATA_DIR)
  if (!isInitialized(files.cluster)) {
    console.error(`${files.root} holds no list yet: nothing to back up.`)
    return EXIT.usage
  }
  const database = await openDatabase({
    dataDir: env.DATA_DIR,
    purpose: 'waitlist backup',
    besideServer: true,
  })
  let manifest: BackupManifest
  try {
    manifest = await database.db.copyTransaction((tx) =>
      takeBaseBackup({
        tx,
        clusterDir: files.cluster,
        passwordFile: files.password,
        dir,
        holds: countHoldings,
        progress: (line) => console.error(line),
      }),
    )
  } finally {
    await database.close()
  }
  const megabytes = (manifest.bytes / 1_048_576).toFixed(1)
  console.log(
    `Backed up to ${dir} (${megabytes} MiB, ${manifest.walSegments} WAL segments), as of ${manifest.endedAt}.`,
  )
  console.log(`It holds ${holdings(manifest.holds)}.`)
  console.log(`Restore it onto an empty DATA_DIR with: npm run waitlist -- restore --from ${dir}`)
  return EXIT.done
}

/**
 * `waitlist restore --from DIR`: rebuilds an empty DATA_DIR from a backup, and starts the cluster
 * once to replay its WAL and count what came back. A DATA_DIR that holds a list is refused untouched.
 */
export async function restoreCommand(from: string | undefined): Promise<number> {
  if (!from) {
    console.error('Usage: npm run waitlist -- restore --from DIR (a directory `backup --to` wrote)')
    return EXIT.usage
  }
  const env = loadServerEnv()
  if (env.DATABASE_URL) {
    console.error(DATABASE_URL_SET)
    return EXIT.usage
  }
  const dir = resolve(from)
  const manifest = await readBackupManifest(dir)
  const files = clusterFiles(env.DATA_DIR)
  const refuseUsed = () => {
    console.error(
      `${files.root} already holds a list: restore only fills an empty DATA_DIR, and changed nothing. ` +
        'Point DATA_DIR at a new directory, or move this one aside first.',
    )
    return EXIT.usage
  }
  // Asked before the lock too: a running server holds the lock of a DATA_DIR that has a list.
  if (isInitialized(files.cluster)) return refuseUsed()
  const unlock = await lockDataDir(env.DATA_DIR, 'waitlist restore')
  try {
    if (isInitialized(files.cluster)) return refuseUsed()
    console.error(`Laying out the backup of ${manifest.endedAt} in ${files.cluster}…`)
    await layOutBaseBackup({
      dir,
      clusterDir: files.cluster,
      passwordFile: files.password,
      account: clusterAccount(),
    })
  } finally {
    await unlock()
  }
  console.error('Starting PostgreSQL to replay the backup’s WAL…')
  const database = await openDatabase({ dataDir: env.DATA_DIR, purpose: 'waitlist restore', migrate: false })
  try {
    console.log(
      `Restored ${files.root} to ${manifest.endedAt}: ${holdings(await countHoldings(database.db))}.`,
    )
  } finally {
    await database.close()
  }
  return EXIT.done
}
