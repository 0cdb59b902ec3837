import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { AuditEntry } from '../server/audit/audit-report'
import { entryArgs } from './test-bundle'

const exec = promisify(execFile)
const ROOT = fileURLToPath(new URL('../', import.meta.url))

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * `npm run waitlist -- …args` as the owner runs it, against the database `env` names (DATA_DIR,
 * DATABASE_URL: a TestServer's env). Resolves with the exit code, never throws on a non-zero one.
 */
export async function runCli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [...entryArgs('waitlist-cli'), ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: '', ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    if (typeof failed.code !== 'number') throw error
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

/**
 * The CLI on a server a file starts in its beforeAll: `target` is read at each call, so the helper
 * can be made at the top of the file, before the server exists.
 */
export const cliOf =
  (target: () => { env: Record<string, string> }) =>
  (...args: string[]): Promise<CliResult> =>
    runCli(target().env, ...args)

/** The team's record as `audit --json` prints it, a line each; throws when the command fails. */
export async function auditRecord(env: Record<string, string>): Promise<AuditEntry[]> {
  const audit = await runCli(env, 'audit', '--json')
  if (audit.code !== 0) throw new Error(`audit --json exited ${audit.code}: ${audit.stderr}`)
  return audit.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEntry)
}
