import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { InlineConfig } from 'vite'
import { DIST_DIR, ROOT } from './paths'
import { StartupError } from './startup-error'

const STAMP = join(DIST_DIR, '.build-stamp')
// Warnings and errors only: Rolldown's notice of slow plugins speaks to whoever tunes the build, not
// to an owner starting the site.
const QUIET = {
  logLevel: 'warn',
  build: { rolldownOptions: { checks: { bundlerTimings: false } } },
} satisfies InlineConfig

const SOURCES = [
  'src',
  'contract',
  'public',
  'build',
  'owner/studio-page',
  'index.html',
  'vite.config.ts',
  'package.json',
]

async function newestMtime(path: string): Promise<number> {
  const { readdir } = await import('node:fs/promises')
  const info = await stat(path).catch(() => undefined)
  if (!info) return 0
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const entry of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, entry)))
  return newest
}

/** True when dist is missing or older than anything it is built from. */
export async function isBuildStale(): Promise<boolean> {
  // Without its sources (the container image) a built dist is all there is: nothing to rebuild from.
  if (!(await stat(join(ROOT, 'src')).catch(() => undefined)))
    return !(await stat(join(DIST_DIR, 'index.html')).catch(() => undefined))
  const built = await stat(STAMP).catch(() => undefined)
  if (!built) return true
  const sources = await Promise.all(SOURCES.map((source) => newestMtime(join(ROOT, source))))
  return Math.max(...sources) > built.mtimeMs
}

/** A checkout read-only to this user (a service's): the build belongs to whoever installs it. */
function cannotWrite(error: unknown): StartupError | undefined {
  const { code } = error as { code?: string }
  if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') return undefined
  return new StartupError(
    `${DIST_DIR} is missing or older than its sources, and this user cannot write it (${code}). ` +
      `Build the site where it is installed (cd ${ROOT} && npm run build), then start again.`,
  )
}

/** Builds the site with Vite when needed, so `npm start` on a fresh clone just works. */
export async function buildIfStale(log: (message: string) => void): Promise<void> {
  if (!(await isBuildStale())) return
  log('Building the site (dist is missing or older than its sources)...')
  const { build } = await import('vite').catch(() => {
    // The container image holds the built site and no build tools; a missing dist there is a broken image.
    throw new StartupError(
      `${DIST_DIR} is missing or older than its sources, and Vite is not installed to build it ` +
        '(a production install). Run `npm install && npm run build`, or rebuild the image.',
    )
  })
  try {
    await build({ root: ROOT, ...QUIET })
    // The waitlist studio's page: a build of its own, into dist/studio/ (as `npm run build`).
    await build({ configFile: join(ROOT, 'owner/studio-page/vite.config.ts'), ...QUIET })
  } catch (error) {
    throw cannotWrite(error) ?? error
  }
  const { writeFile } = await import('node:fs/promises')
  await writeFile(STAMP, new Date().toISOString())
}
