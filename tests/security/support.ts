import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { entryArgs } from '../../harness/test-bundle'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export const asRoot = process.getuid?.() === 0
export const NOBODY = { uid: 65534, gid: 65534 }

/**
 * Whether `nobody` can read this checkout, to run the server as that account. A checkout under a
 * private directory (a 0700 CI workspace) hides it; the tests that need it then skip, and say so.
 */
export const checkoutReadableByNobody =
  asRoot &&
  spawnSync('sh', ['-c', 'test -r "$1"', 'sh', `${ROOT}node_modules/tsx/package.json`], NOBODY).status === 0

/** Runs the server until it exits by itself (a refused start), or until it serves (then stopped). */
export async function startRefused(
  env: Record<string, string>,
  user?: { uid: number; gid: number },
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, entryArgs('main'), {
    cwd: ROOT,
    ...user,
    env: { ...process.env, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', SKIP_BUILD: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
    if (/Serving http/.test(output)) child.kill('SIGTERM')
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const [code] = await once(child, 'exit')
  return { code, output }
}
