import { execFile } from 'node:child_process'
import { Console } from 'node:console'
import { Writable } from 'node:stream'
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
 * `npm run waitlist -- …args` as the owner runs it, a process of its own, against the database `env`
 * names (DATA_DIR, DATABASE_URL: a TestServer's env). Resolves with the exit code, never throws on
 * a non-zero one. For what only a process shows: signals, the studio's listener, a second CLI at
 * the same moment, and each command once as the owner starts it (waitlist-cli.test.ts).
 */
export async function runCliProcess(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [...entryArgs('waitlist-cli'), ...args], {
      cwd: ROOT,
      env: childEnv(env),
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    if (typeof failed.code !== 'number') throw error
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

const childEnv = (env: Record<string, string>) => ({
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: '',
  ...env,
})

/** One call at a time in a process: the environment and the standard streams are the process's own. */
let queue: Promise<unknown> = Promise.resolve()

/**
 * The same command line run in this process: runCommandLine, the function the `waitlist` process
 * runs, with `env` as its environment and its standard output and error captured. It gives what
 * the process gives (code, stdout, stderr) for about a twentieth of the time: a process costs a
 * Node start and the loading of its modules (0.3-0.6 s; the suites run the CLI some 400 times).
 * Calls queue behind each other.
 */
export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  if (args[0] === 'studio') throw new Error('The studio listens until stopped: start it with startStudio')
  const call = queue.then(() => runHere(env, args))
  queue = call.catch(() => undefined)
  return call
}

async function runHere(env: Record<string, string>, args: string[]): Promise<CliResult> {
  const { runCommandLine } = await import('../owner/cli/run-command')
  const out = collector()
  const err = collector()
  const saved = {
    env: process.env,
    console: globalThis.console,
    stdout: Object.getOwnPropertyDescriptor(process, 'stdout'),
    stderr: Object.getOwnPropertyDescriptor(process, 'stderr'),
  }
  // New streams for each call, as a process has: a command's pipeline leaves its listeners on them.
  process.env = childEnv(env)
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => out.stream })
  Object.defineProperty(process, 'stderr', { configurable: true, enumerable: true, get: () => err.stream })
  globalThis.console = new Console({ stdout: out.stream, stderr: err.stream })
  try {
    const code = await runCommandLine(args)
    return { code, stdout: out.text(), stderr: err.text() }
  } finally {
    process.env = saved.env
    if (saved.stdout) Object.defineProperty(process, 'stdout', saved.stdout)
    if (saved.stderr) Object.defineProperty(process, 'stderr', saved.stderr)
    globalThis.console = saved.console
  }
}

function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk)
      done()
    },
  })
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') }
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
