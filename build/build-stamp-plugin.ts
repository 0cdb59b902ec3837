import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { Plugin } from 'vite'

/**
 * Writes .build-stamp in the build's folder (dist/, dist/studio/), which
 * server/boot/build-if-stale.ts compares with the sources: a site built by `npm run build` is not
 * built again by `npm start`, and a service whose checkout is read-only to it
 * (deploy/lab-site.service) starts on the dist built at install time.
 */
export function buildStampPlugin(): Plugin {
  let outDir = ''
  return {
    name: 'lab:build-stamp',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir)
    },
    async closeBundle() {
      await writeFile(join(outDir, '.build-stamp'), new Date().toISOString())
    },
  }
}
