/**
 * `npm start`: the server bundled by esbuild (a third of a second) and run by plain Node, as the
 * container image runs it. Through tsx the same server holds some 47 MiB more from its first moment
 * (tsx's loader thread and its transforms: 41 → 72 MiB on an empty script), which put a busy server
 * past its 150 MiB bound (docs/benchmark.md).
 *
 * Each bundle goes to a folder named by its content's hash, written whole and then renamed into
 * place: several servers started from one checkout never read one another's half-written files, and
 * a running server's lazily loaded chunk (the MCP SDK) is never replaced under it. A checkout that
 * cannot be written (a read-only service) and holds no bundle of these sources runs through tsx.
 * `node build/start.mjs --bundle-only` makes the bundle and stops there.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, stop } from 'esbuild'
import { serverBundleOptions } from './server-bundle-options.mjs'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
const CACHE = join(ROOT, 'node_modules', '.cache', 'lab-site-server')
const PENDING = join(CACHE, 'pending')

/** The bundle in memory, and the folder its hash names. */
async function bundleInMemory() {
  const { outputFiles } = await build({
    ...serverBundleOptions,
    absWorkingDir: ROOT,
    entryPoints: { main: 'server/boot/main.ts' },
    outdir: PENDING,
    write: false,
  })
  const hash = createHash('sha256')
  for (const file of outputFiles) hash.update(relative(PENDING, file.path)).update(file.contents)
  return { outputFiles, dir: join(CACHE, `server-${hash.digest('hex').slice(0, 16)}`) }
}

async function writeWhole(outputFiles, dir) {
  const temporary = `${dir}.${process.pid}.tmp`
  await rm(temporary, { recursive: true, force: true })
  for (const file of outputFiles) {
    const path = join(temporary, relative(PENDING, file.path))
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, file.contents)
  }
  try {
    await rename(temporary, dir)
  } catch (error) {
    // Another start wrote the same bytes first.
    await rm(temporary, { recursive: true, force: true })
    if (!existsSync(join(dir, 'main.mjs'))) throw error
  }
}

/**
 * The bundle's entry, written when new. A function of its own, so the bundle's bytes in memory
 * (esbuild's output files) are garbage once it returns: the server runs in this same process.
 */
async function bundledEntry() {
  const { outputFiles, dir } = await bundleInMemory()
  // esbuild's service process has nothing more to do for this server.
  await stop()
  const entry = join(dir, 'main.mjs')
  if (existsSync(entry) && !process.argv.includes('--bundle-only')) return entry
  try {
    await writeWhole(outputFiles, dir)
    return entry
  } catch (error) {
    console.log(
      `Could not write the server's bundle (${error.code ?? error.message}): running it through tsx`,
    )
    const { register } = await import('tsx/esm/api')
    register()
    return join(ROOT, 'server', 'boot', 'main.ts')
  }
}

const entry = await bundledEntry()
if (!process.argv.includes('--bundle-only')) await import(pathToFileURL(entry).href)
