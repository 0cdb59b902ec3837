import {
  BackupRefused,
  backUpTo,
  holdingsLine,
  readBackupLine,
  readBackupStatus,
  restoreFrom,
} from '../../server/admin/runtime'
import { loadServerEnv } from '../../server/boot/owner-assembly'
import { EXIT } from './exit-status'

const progress = (line: string) => console.error(line)

/** A refusal is said as it is, exit 2; anything else is the CLI's ordinary failure. */
async function refusals(run: () => Promise<number>): Promise<number> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof BackupRefused)) throw error
    console.error(error.message)
    return EXIT.usage
  }
}

/**
 * `waitlist backup --to DIR`: a consistent copy of the embedded cluster, everything the lab holds
 * (the list, the team and its passkeys, the record, the erased list, settings and outboxes), taken
 * while the site runs and signups go on. `backup status`: the continuous backup's last piece.
 */
export async function backupCommand(action: string | undefined, to: string | undefined): Promise<number> {
  const env = loadServerEnv()
  if (action === 'status') return backupStatusCommand(env)
  if (action !== undefined || !to) {
    console.error('Usage: npm run waitlist -- backup --to DIR (a new or empty directory) | backup status')
    return EXIT.usage
  }
  return refusals(async () => {
    const manifest = await backUpTo(env, to, progress)
    const megabytes = (manifest.bytes / 1_048_576).toFixed(1)
    console.log(
      `Backed up to ${manifest.dir} (${megabytes} MiB, ${manifest.walSegments} WAL segments), as of ${manifest.endedAt}.`,
    )
    console.log(`It holds at least ${holdingsLine(manifest.holds)} (restore counts them exactly).`)
    console.log(`Restore it onto an empty DATA_DIR with: npm run waitlist -- restore --from ${manifest.dir}`)
    return EXIT.done
  })
}

/**
 * `backup status`: the studio's line (backup-health.ts: how long ago, or why to worry), then the
 * running server's exact times. Exit 1 when the line is a warning, for a cron job to mail.
 */
async function backupStatusCommand(env: ReturnType<typeof loadServerEnv>): Promise<number> {
  const line = await readBackupLine(env)
  console.log(line.line)
  const read = line.store ? await readBackupStatus(env) : undefined
  const status = read?.store === line.store ? read : undefined
  if (status?.lastPieceAt)
    console.log(
      `Continuous backup to ${status.store}: the last piece reached it at ${status.lastPieceAt}; the last base at ${status.lastBaseAt ?? 'an earlier start'}.`,
    )
  if (status?.failing) console.log(`FAILING since ${status.failingSince}: ${status.failing}`)
  return line.level === 'warning' ? EXIT.nothingDone : EXIT.done
}

/**
 * `waitlist restore --from DIR|URL [--at TIME]`: rebuilds an empty DATA_DIR, to the latest point or
 * to TIME; a DATA_DIR that holds a list is refused untouched.
 */
export async function restoreCommand(from: string | undefined, at?: string): Promise<number> {
  if (!from) {
    console.error(
      'Usage: npm run waitlist -- restore --from DIR|URL [--at TIME] (a backup directory, or BACKUP_URL: file:///PATH, s3://BUCKET/PREFIX; TIME in ISO 8601, as 2024-05-01T09:30:00Z)',
    )
    return EXIT.usage
  }
  const env = loadServerEnv()
  return refusals(async () => {
    const restored = await restoreFrom(env, from, progress, at)
    const segments = restored.segments === undefined ? '' : ` (${restored.segments} WAL segments replayed)`
    console.log(`Restored ${env.DATA_DIR} to ${restored.asOf}${segments}: ${holdingsLine(restored.holds)}.`)
    if (restored.reapplied)
      console.log(
        `Erasures made after that and kept beside the backup, made again: ${restored.reapplied.hashes} (${restored.reapplied.entries} entries erased).`,
      )
    return EXIT.done
  })
}
