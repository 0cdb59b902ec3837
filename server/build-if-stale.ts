import { stat } from 'node:fs/promises'
import { join } from 'node:path'

export const ROOT = new URL('../', import.meta.url).pathname
export const DIST_DIR = join(ROOT, 'dist')
const STAMP = join(DIST_DIR, '.build-stamp')
const SOURCES = ['src', 'public', 'build', 'studio', 'index.html', 'vite.config.ts', 'package.json']

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
  const built = await stat(STAMP).catch(() => undefined)
  if (!built) return true
  const sources = await Promise.all(SOURCES.map((source) => newestMtime(join(ROOT, source))))
  return Math.max(...sources) > built.mtimeMs
}

/** Builds the site with Vite when needed, so `npm start` on a fresh clone just works. */
export async function buildIfStale(log: (message: string) => void): Promise<void> {
  if (!(await isBuildStale())) return
  log('Building the site (dist is missing or older than its sources)...')
  const { build } = await import('vite')
  await build({ root: ROOT, logLevel: 'warn' })
  // The waitlist studio's page: a build of its own, into dist/studio/ (as `npm run build`).
  await build({ configFile: join(ROOT, 'studio/vite.config.ts'), logLevel: 'warn' })
  const { writeFile } = await import('node:fs/promises')
  await writeFile(STAMP, new Date().toISOString())
}
