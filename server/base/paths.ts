import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The nearest folder at or above `from` that holds package.json: the project's root. This module
 * sits two folders below it in the source tree (server/base/) and one below it in the container's
 * bundle (server-dist/), so the root is found, not counted.
 */
function rootAbove(from: string): string {
  if (existsSync(join(from, 'package.json'))) return from
  const parent = dirname(from)
  if (parent === from) throw new Error(`No package.json above ${fileURLToPath(import.meta.url)}`)
  return rootAbove(parent)
}

/** Where the project's files are, so the same code finds dist/ and the migrations in either place. */
export const ROOT = rootAbove(dirname(fileURLToPath(import.meta.url)))
export const DIST_DIR = join(ROOT, 'dist')
export const MIGRATIONS_DIR = join(ROOT, 'supabase', 'migrations')
