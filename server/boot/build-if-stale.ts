import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { constants, existsSync } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { InlineConfig } from 'vite'
import { DIST_DIR, ROOT } from '../base/paths'
import { StartupError } from '../base/startup-error'

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

/** A build of its own into `dir`, which its config's buildStampPlugin stamps with `.build-stamp`. */
interface BuildPart {
  dir: string
  /** Vite's inline config: the site's is found in the root, the studio's is named. */
  vite: InlineConfig
  /** What the log says is being built. */
  name: string
}

const SITE: BuildPart = {
  dir: DIST_DIR,
  vite: { root: ROOT },
  name: 'the site (dist is missing or older than its sources)',
}
/**
 * The waitlist studio's page (owner/studio-page/vite.config.ts), into dist/studio/: the local
 * studio (`npm run waitlist -- studio`) and the site's team studio at /studio serve it. The site's
 * build empties dist/, this part and its stamp with it.
 */
const STUDIO: BuildPart = {
  dir: join(DIST_DIR, 'studio'),
  vite: { configFile: join(ROOT, 'owner/studio-page/vite.config.ts') },
  name: "the studio's page (dist/studio is missing or older than its sources)",
}

/** True when the part is missing or older than anything it is built from. */
export async function isBuildStale(part: BuildPart = SITE): Promise<boolean> {
  // Without its sources (the container image) a built dist is all there is: nothing to rebuild from.
  if (!(await stat(join(ROOT, 'src')).catch(() => undefined)))
    return !(await stat(join(part.dir, 'index.html')).catch(() => undefined))
  const built = await stat(join(part.dir, '.build-stamp')).catch(() => undefined)
  if (!built) return true
  const sources = await Promise.all(SOURCES.map((source) => newestMtime(join(ROOT, source))))
  return Math.max(...sources) > built.mtimeMs
}

/** A checkout read-only to this user (a service's): the build belongs to whoever installs it. */
async function refuseUnwritable(): Promise<void> {
  const error = await access(existsSync(DIST_DIR) ? DIST_DIR : ROOT, constants.W_OK).catch((e) => e)
  const code = (error as { code?: string } | undefined)?.code
  if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') return
  throw new StartupError(
    `${DIST_DIR} is missing or older than its sources, and this user cannot write it (${code}). ` +
      `Build the site where it is installed (cd ${ROOT} && npm run build), then start again.`,
  )
}

/** One part's build, in a child process (build/vite-build.mjs says why). */
async function viteBuild(part: BuildPart): Promise<void> {
  const script = join(ROOT, 'build', 'vite-build.mjs')
  const child = spawn(process.execPath, [script, JSON.stringify(part.vite)], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const [code, signal] = await once(child, 'exit')
  if (code !== 0)
    throw new StartupError(`Building ${part.name} failed (${signal ?? `exit code ${code}`}); see above.`)
}

/**
 * Builds the site with Vite when needed, so `npm start` on a fresh clone just works; with
 * `studio`, the studio's page too (as `npm run build` does).
 */
export async function buildIfStale(
  log: (message: string) => void,
  { studio = true }: { studio?: boolean } = {},
): Promise<void> {
  // The site first: its build empties dist/, the studio's page included.
  const stale: BuildPart[] = []
  for (const part of studio ? [SITE, STUDIO] : [SITE])
    if (stale.length > 0 || (await isBuildStale(part))) stale.push(part)
  if (stale.length === 0) return
  if (!existsSync(join(ROOT, 'node_modules', 'vite', 'package.json')))
    // The container image holds the built site and no build tools; a missing dist there is a broken image.
    throw new StartupError(
      `${DIST_DIR} is missing or older than its sources, and Vite is not installed to build it ` +
        '(a production install). Run `npm install && npm run build`, or rebuild the image.',
    )
  await refuseUnwritable()
  log(`Building ${stale[0]?.name}...`)
  for (const part of stale) await viteBuild(part)
}
