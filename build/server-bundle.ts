import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { build } from 'esbuild'
import { ROOT } from '../server/base/paths'
import { serverBundleOptions } from './server-bundle-options.mjs'

/**
 * The server and the owner's CLI as plain JavaScript for the container image, which then needs
 * neither tsx nor any node_modules but PostgreSQL's binaries.
 */
export const SERVER_DIST_DIR = join(ROOT, 'server-dist')

export async function bundleServer(): Promise<void> {
  await rm(SERVER_DIST_DIR, { recursive: true, force: true })
  await build({
    ...serverBundleOptions,
    absWorkingDir: ROOT,
    entryPoints: { main: 'server/boot/main.ts', 'waitlist-cli': 'owner/cli/waitlist-cli.ts' },
    outdir: SERVER_DIST_DIR,
  })
}

if (import.meta.url === `file://${process.argv[1]}`) await bundleServer()
