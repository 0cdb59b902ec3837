/**
 * One Vite build, run as a child process by server/boot/build-if-stale.ts: `node build/vite-build.mjs
 * '<inline config as JSON>'`. Run inside the server, a build left Vite's modules and some 300 MiB of
 * heap in a process that then serves for weeks (402 MiB RSS 20 s after a first start, against 92).
 */
import { build } from 'vite'

const config = JSON.parse(process.argv[2] ?? '{}')
// Warnings and errors only: Rolldown's notice of slow plugins speaks to whoever tunes the build, not
// to an owner starting the site.
await build({
  ...config,
  logLevel: 'warn',
  build: { rolldownOptions: { checks: { bundlerTimings: false } } },
})
