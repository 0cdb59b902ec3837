import { createHash } from 'node:crypto'
import { cp, mkdir, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, readMigrations } from '../../server/db/migrate'
import { openPglite } from '../../server/db/pglite-driver'

// A new PGlite cluster costs ~5-8 s of initdb; reopening one costs ~1 s. So the migrations are
// applied once to a template cluster, and each test copies it.
async function templateDir(): Promise<string> {
  const migrations = await readMigrations()
  const pglite = JSON.parse(
    await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
  ) as { version: string }
  const hash = createHash('sha256')
    .update(pglite.version)
    .update(migrations.map((m) => m.version + m.sql).join('\n'))
    .digest('hex')
    .slice(0, 16)
  const dir = join(tmpdir(), `lab-site-pglite-template-${hash}`)
  if (await stat(join(dir, 'ready')).catch(() => undefined)) return dir
  const building = await mkdtemp(join(tmpdir(), 'lab-site-template-build-'))
  const db = await openPglite(join(building, 'pglite'))
  await migrate(db, migrations)
  await db.close()
  await mkdir(join(building, 'ready'))
  // Another worker may have won the race; either copy is as good.
  await rename(building, dir).catch(() => rm(building, { recursive: true, force: true }))
  return dir
}

/** A new DATA_DIR holding a migrated PGlite cluster, removed by the returned cleanup. */
export async function freshDataDir(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const template = await templateDir()
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-data-'))
  await cp(join(template, 'pglite'), join(dir, 'pglite'), { recursive: true })
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** Warms the template once, before parallel workers start (vitest / playwright global setup). */
export async function prepareTemplate(): Promise<void> {
  await templateDir()
}
