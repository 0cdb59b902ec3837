import { join } from 'node:path'

/**
 * Where the project's files are. Every path is taken from this one module's place, one folder below
 * the root, which holds both in the source tree (server/) and in the container's bundle
 * (server-dist/), so the same code finds dist/ and the migrations in either.
 */
export const ROOT = new URL('../', import.meta.url).pathname
export const DIST_DIR = join(ROOT, 'dist')
export const MIGRATIONS_DIR = join(ROOT, 'supabase', 'migrations')
