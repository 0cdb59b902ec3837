import {
  BackupRefused,
  backUpTo,
  holdingsLine,
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

async function backupStatusCommand(env: ReturnType<typeof loadServerEnv>): Promise<number> {
  const status = await readBackupStatus(env)
  if (!env.BACKUP_URL) {
    console.log(
      'Continuous backup is off (no BACKUP_URL): take copies with backup --to DIR (docs/deploy.md).',
    )
    return status ? EXIT.done : EXIT.nothingDone
  }
  if (!status?.lastPieceAt) {
    console.log(
      `Continuous backup to ${env.BACKUP_URL}: nothing has reached it yet (is the server running?).`,
    )
    return EXIT.nothingDone
  }
  console.log(
    `Continuous backup to ${status.store}: the last piece reached it at ${status.lastPieceAt}; the last base at ${status.lastBaseAt ?? 'an earlier start'}.`,
  )
  if (status.failing) console.log(`FAILING since ${status.failingSince}: ${status.failing}`)
  return status.failing ? EXIT.nothingDone : EXIT.done
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
