import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { build } from 'esbuild'
import { serverBundleOptions } from '../build/server-bundle-options.mjs'
import { ROOT } from '../server/base/paths'

/**
 * Set by the global setups (Vitest, Playwright): the folder of this run's bundle. Unset (a bench, a
 * script importing harness/), the children run from their sources through tsx.
 */
const TEST_BUNDLE = 'LAB_SITE_TEST_BUNDLE'
const CACHE = join(ROOT, 'node_modules', '.cache', 'lab-site-test')
/** What the tests run as a child process: the server, the CLI, and the lock test's racers. */
const ENTRIES = {
  main: 'server/boot/main.ts',
  'waitlist-cli': 'owner/cli/waitlist-cli.ts',
  'lock-racer': 'tests/security/support/lock-racer.ts',
}

/**
 * Bundles the ENTRIES once per run (esbuild, about a second), as the container image does
 * (build/server-bundle.ts). Each child then starts as plain Node: tsx's loader costs one to three
 * seconds a process on a busy machine, and the suites start hundreds. The folder is named by
 * the bundle's content, written whole and renamed into place, so two runs at once (test:node and
 * test:e2e) never read each other's half-written files.
 */
export async function bundleForTests(): Promise<void> {
  const pending = join(CACHE, 'pending')
  const { outputFiles } = await build({
    ...serverBundleOptions,
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: pending,
    write: false,
  })
  const hash = createHash('sha256')
  for (const file of outputFiles) hash.update(relative(pending, file.path)).update(file.contents)
  const dir = join(CACHE, hash.digest('hex').slice(0, 16))
  if (!existsSync(join(dir, 'waitlist-cli.mjs'))) {
    const temporary = `${dir}.${process.pid}.tmp`
    for (const file of outputFiles) {
      const path = join(temporary, relative(pending, file.path))
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, file.contents)
    }
    // Another run may have written the same bytes first.
    await rename(temporary, dir).catch(() => rm(temporary, { recursive: true, force: true }))
  }
  process.env[TEST_BUNDLE] = dir
}

/** Node's arguments to run one of the ENTRIES: this run's bundle, else its source through tsx. */
export function entryArgs(entry: keyof typeof ENTRIES): string[] {
  const bundle = process.env[TEST_BUNDLE]
  return bundle ? [join(bundle, `${entry}.mjs`)] : ['--import', 'tsx', ENTRIES[entry]]
}
