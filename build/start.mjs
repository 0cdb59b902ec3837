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
 *
 * A start whose sources are those of the last bundle (each input's size and mtime, as esbuild
 * listed them) runs that bundle without loading esbuild at all: esbuild's work in this process left
 * the server 9-12 MiB larger for its whole life than the same bundle run alone.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { serverBundleOptions } from './server-bundle-options.mjs'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
const CACHE = join(ROOT, 'node_modules', '.cache', 'lab-site-server')
const PENDING = join(CACHE, 'pending')
/** The last bundle's folder, its inputs and their fingerprint. */
const LAST = join(CACHE, 'last-bundle.json')
/** Not an input esbuild lists, yet it shapes the output. */
const OPTIONS_FILE = 'build/server-bundle-options.mjs'
const BUNDLE_ONLY = process.argv.includes('--bundle-only')

/** Each file's path, size and mtime: any edit, checkout or install changes it. */
async function fingerprint(inputs) {
  const files = [...inputs, OPTIONS_FILE].sort()
  const infos = await Promise.all(files.map((input) => stat(join(ROOT, input)).catch(() => undefined)))
  const hash = createHash('sha256')
  for (const [index, info] of infos.entries()) {
    if (!info) return undefined
    hash.update(`${files[index]}\0${info.size}\0${info.mtimeMs}\n`)
  }
  return hash.digest('hex')
}

/** The last bundle's entry when no input has changed since it was made; else undefined. */
async function unchangedEntry() {
  const last = await readFile(LAST, 'utf8').then(JSON.parse, () => undefined)
  if (!last?.dir || !Array.isArray(last.inputs)) return undefined
  const entry = join(last.dir, 'main.mjs')
  if (!existsSync(entry) || (await fingerprint(last.inputs)) !== last.fingerprint) return undefined
  return entry
}

async function rememberBundle(dir, inputs) {
  const temporary = `${LAST}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify({ dir, inputs, fingerprint: await fingerprint(inputs) }))
  await rename(temporary, LAST)
}

/** The bundle in memory, and the folder its hash names. */
async function bundleInMemory() {
  const { build, stop } = await import('esbuild')
  const { outputFiles, metafile } = await build({
    ...serverBundleOptions,
    absWorkingDir: ROOT,
    entryPoints: { main: 'server/boot/main.ts' },
    outdir: PENDING,
    write: false,
    metafile: true,
  })
  // esbuild's service process has nothing more to do for this server.
  await stop()
  const hash = createHash('sha256')
  for (const file of outputFiles) hash.update(relative(PENDING, file.path)).update(file.contents)
  const dir = join(CACHE, `server-${hash.digest('hex').slice(0, 16)}`)
  return { outputFiles, dir, inputs: Object.keys(metafile.inputs) }
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
  const unchanged = BUNDLE_ONLY ? undefined : await unchangedEntry()
  if (unchanged) return unchanged
  const { outputFiles, dir, inputs } = await bundleInMemory()
  const entry = join(dir, 'main.mjs')
  try {
    if (!existsSync(entry) || BUNDLE_ONLY) await writeWhole(outputFiles, dir)
  } catch (error) {
    console.log(
      `Could not write the server's bundle (${error.code ?? error.message}): running it through tsx`,
    )
    const { register } = await import('tsx/esm/api')
    register()
    return join(ROOT, 'server', 'boot', 'main.ts')
  }
  // A cache this user cannot write only costs the next start esbuild's run.
  await rememberBundle(dir, inputs).catch(() => {})
  return entry
}

const entry = await bundledEntry()
if (!BUNDLE_ONLY) await import(pathToFileURL(entry).href)
