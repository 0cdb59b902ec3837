import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { loadApiKeys } from '../../server/keys'
import { freshDataDir } from './data-dir'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface TestServer {
  url: string
  anonKey: string
  serviceKey: string
  dataDir: string
  /** The variables it was started with beyond the defaults (DATABASE_URL…), to start another on the same database. */
  env: Record<string, string>
  process: ChildProcess
  /** Everything the server printed, for tests that inspect logs. */
  output(): string
  /** SIGTERM and wait; the data dir is kept unless cleanup() is called. */
  stop(): Promise<void>
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>
  cleanup(): Promise<void>
}

export interface TestServerOptions {
  dataDir?: string
  env?: Record<string, string>
  /** Milliseconds to wait for "Serving http://…". */
  timeout?: number
}

/**
 * Runs the real server (`server/main.ts`) as a child process on 127.0.0.1 and a free port, with
 * its own data dir, exactly as `npm start` does but without the build step.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const fresh = options.dataDir ? undefined : await freshDataDir()
  const dataDir = options.dataDir ?? fresh?.dir ?? ''
  const env = { ...options.env }
  const keys = await loadApiKeys({ jwtSecret: env.JWT_SECRET, dataDir })
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      SKIP_BUILD: '1',
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in time:\n${output}`)),
      options.timeout ?? 30_000,
    )
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Serving (http:\/\/\S+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with code ${code} before serving:\n${output}`))
    })
  })
  const exited = once(child, 'exit')
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    await exited
  }
  return {
    url,
    anonKey: keys.anonKey,
    serviceKey: keys.serviceKey,
    dataDir,
    env,
    process: child,
    output: () => output,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    async cleanup() {
      await end('SIGTERM')
      await fresh?.cleanup()
    },
  }
}
