import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { findPostgresBinaries } from '../server/db/embedded/binaries'
import { clusterAccount } from '../server/db/embedded/cluster-account'
import { readMigrations } from '../server/db/migrate'
import { openDatabase } from '../server/db/open-database'

const run = promisify(execFile)

/** Set by npm test's global setups: this run's folder on a memory file system (memory-scratch.ts). */
export const SCRATCH_ENV = 'LAB_SITE_TEST_SCRATCH'

/** Where clusters are copied: this run's folder in memory, else the temporary directory. */
const scratchParent = () => process.env[SCRATCH_ENV] || tmpdir()
/** The template outlives a run: beside the run's folder, else in the temporary directory. */
const templateParent = () => (process.env[SCRATCH_ENV] ? dirname(process.env[SCRATCH_ENV]) : tmpdir())

// A new cluster costs an initdb (~1 s, synced); a copy of a stopped one ~0.1 s. So the migrations
// are applied once to a template DATA_DIR, and each test copies it.
async function templateDir(): Promise<string> {
  const migrations = await readMigrations()
  const binaries = findPostgresBinaries()
  const hash = createHash('sha256')
    .update(binaries.postgres)
    // As root the cluster belongs to the account PostgreSQL runs as; a new one needs a new template.
    .update(String(clusterAccount()?.uid ?? process.getuid?.()))
    .update(await readFile(join(binaries.postgres, '../../../package.json')))
    .update(migrations.map((m) => m.version + m.sql).join('\n'))
    .digest('hex')
    .slice(0, 16)
  const dir = join(templateParent(), `lab-site-embedded-template-${hash}`)
  const found = await lstat(dir).catch(() => undefined)
  // A shared temp dir: only a template this user made, that no one else could have changed, is used.
  const ours =
    found?.isDirectory() &&
    (process.getuid === undefined || (found.uid === process.getuid() && (found.mode & 0o022) === 0))
  if (ours && (await stat(join(dir, 'ready')).catch(() => undefined))) return dir
  const building = await mkdtemp(join(templateParent(), 'lab-site-template-build-'))
  // mkdtemp makes 0700 directories; as root, the account PostgreSQL runs as must get through.
  await chmod(building, 0o755)
  const database = await openDatabase({ dataDir: building, purpose: 'test template' })
  await database.close()
  // Each copy picks its own free port.
  await rm(join(building, 'postgres.port'), { force: true })
  await mkdir(join(building, 'ready'))
  if (found && !ours) return building // someone else's name: this run keeps its own copy
  // Another worker may have won the race; either copy is as good.
  await rename(building, dir).catch(() => rm(building, { recursive: true, force: true }))
  if (process.env[SCRATCH_ENV]) await forgetOtherTemplates(dir)
  return dir
}

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * In memory, the templates of older migrations would hold 40 MB each until a reboot: when one is
 * made, the others this user made more than a day ago go. A checkout running now with other
 * migrations has made its own within the day, or makes it again when it next looks.
 */
async function forgetOtherTemplates(kept: string): Promise<void> {
  const parent = dirname(kept)
  for (const name of await readdir(parent)) {
    const other = join(parent, name)
    if (!name.startsWith('lab-site-embedded-template-') || other === kept) continue
    const found = await lstat(other).catch(() => undefined)
    const made = await stat(join(other, 'ready')).catch(() => undefined)
    const old = made === undefined || made.mtimeMs < Date.now() - DAY_MS
    if (found?.isDirectory() && found.uid === process.getuid?.() && old)
      await rm(other, { recursive: true, force: true })
  }
}

/**
 * A new DATA_DIR holding a migrated, stopped cluster, removed by the returned cleanup; in the
 * scratch folder unless `parent` names another (a mount of a particular file system).
 */
export async function freshDataDir(
  parent = scratchParent(),
): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const template = await templateDir()
  const dir = await mkdtemp(join(parent, 'lab-site-data-'))
  await chmod(dir, 0o755)
  // cp -a keeps the owner: as root, the cluster belongs to the account PostgreSQL runs as.
  await run('cp', ['-a', join(template, 'postgres'), join(template, 'postgres-password'), dir])
  // Binaries staged for that account (a checkout it cannot read): linked, not copied again.
  const staged = join(template, 'postgres-binaries')
  if (await stat(staged).catch(() => undefined))
    await run('cp', ['-al', staged, dir]).catch(() => run('cp', ['-a', staged, dir]))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** A new, empty DATA_DIR (no cluster), removed by the returned cleanup: what a lost machine's replacement starts from. */
export async function emptyDataDir(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(scratchParent(), 'lab-site-empty-'))
  // The account PostgreSQL runs as (as root) must reach the cluster inside.
  await chmod(dir, 0o755)
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** Warms the template once, before parallel workers start (vitest / playwright global setup). */
export async function prepareTemplate(): Promise<void> {
  await templateDir()
}
