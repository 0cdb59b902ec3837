import { existsSync } from 'node:fs'

/**
 * Reads ./.env when there is one (Node's own parser); variables already set in the environment win.
 * Skipped under NODE_ENV=test so a developer's .env (a DATABASE_URL, say) never leaks into tests.
 * Apart from env.ts and its schema, which the CLI's `--help` has no use for.
 */
export function loadDotEnvFile(path = '.env') {
  if (process.env.NODE_ENV !== 'test' && existsSync(path)) process.loadEnvFile(path)
}
