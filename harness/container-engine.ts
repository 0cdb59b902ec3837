import { execFile, execFileSync } from 'node:child_process'
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'

const exec = promisify(execFile)

/** The base image the Dockerfile builds on. */
export const BASE_IMAGE = 'docker.io/library/node:22-bookworm-slim'

function found(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** podman, else docker (with a daemon that answers), else undefined with the reason. */
export function containerEngine(): { engine?: string; reason?: string } {
  if (found('podman')) return { engine: 'podman' }
  if (found('docker')) {
    try {
      execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 })
      return { engine: 'docker' }
    } catch {
      return { reason: 'docker is installed but no Docker engine answers' }
    }
  }
  return { reason: 'neither podman nor docker is installed (Debian: apt-get install podman)' }
}

/** Runs the engine with `args`; rejects with its own words when it fails. */
export async function engineRun(
  engine: string,
  args: string[],
  options: { timeoutMs?: number; input?: string } = {},
): Promise<string> {
  try {
    const child = exec(engine, args, { timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 })
    if (options.input !== undefined) {
      child.child.stdin?.end(options.input)
    }
    return (await child).stdout
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string }
    throw new Error(
      `${engine} ${args.join(' ')} failed: ${(error as Error).message}\n${stdout ?? ''}${stderr ?? ''}`,
    )
  }
}

/** The engine's exit code and output for `args`, failures included. */
export async function engineTry(engine: string, args: string[], timeoutMs = 120_000) {
  try {
    const { stdout, stderr } = await exec(engine, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof code === 'number' ? code : -1, output: (stdout ?? '') + (stderr ?? '') }
  }
}

/**
 * The committed tree as a fresh clone has it, plus uncommitted edits to tracked files (git stash
 * create), copied into a new directory: the image is built from what the repository holds, never
 * from node_modules, dist or data lying in the working copy.
 */
export async function cleanCopyOfTree(root: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-image-src-'))
  // `git stash create` needs the index lock for a moment; another git command may hold it.
  const stash = await exec('git', ['stash', 'create'], { cwd: root }).then(
    ({ stdout }) => stdout.trim(),
    async () => (await exec('git', ['stash', 'create'], { cwd: root })).stdout.trim(),
  )
  const archive = join(dir, '..', `${dir.split('/').at(-1)}.tar`)
  await exec('git', ['archive', '--format=tar', '-o', archive, stash || 'HEAD'], { cwd: root })
  await exec('tar', ['-xf', archive, '-C', dir])
  await rm(archive, { force: true })
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * Builds `image` from the repository as it is (cleanCopyOfTree), in docker format (an OCI image
 * cannot carry a HEALTHCHECK), without pulling when the base is here already.
 */
export async function buildImage(engine: string, image: string, root: string): Promise<void> {
  const tree = await cleanCopyOfTree(root)
  try {
    const haveBase = (await engineTry(engine, ['image', 'exists', BASE_IMAGE])).code === 0
    const pull = haveBase ? ['--pull=never'] : []
    await engineRun(engine, ['build', ...pull, '--format', 'docker', '-t', image, tree.dir], {
      timeoutMs: 15 * 60_000,
    })
  } finally {
    await tree.remove()
  }
}

/** A container suite's leftovers, whatever state they are in: its containers, its image, its folder. */
export async function removeAll(engine: string, containers: string[], image: string, work?: string) {
  for (const name of containers) await engineTry(engine, ['rm', '-f', name])
  await engineTry(engine, ['rmi', '-f', image])
  if (work) await rm(work, { recursive: true, force: true })
}

/** Size in bytes of an image, as the engine reports it. */
export async function imageSize(engine: string, image: string): Promise<number> {
  return Number((await engineRun(engine, ['image', 'inspect', '--format', '{{.Size}}', image])).trim())
}

/**
 * `run` arguments for the image as the deploy guide runs it: detached, a read-only root with a /tmp
 * tmpfs, `data` as /data, port 3000 published on the host's loopback at `port`.
 */
export function runArgs(options: {
  image: string
  name: string
  data: string
  port: number
  env?: Record<string, string>
  publish?: string[]
  /** More volumes, as `HOST:CONTAINER` (a mounted backup disk). */
  volumes?: string[]
}): string[] {
  const { image, name, data, port, env = {}, publish = [], volumes = [] } = options
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`])
  return [
    ...['run', '-d', '--name', name, '--read-only', '--tmpfs', '/tmp', '-v', `${data}:/data`],
    ...volumes.flatMap((volume) => ['-v', volume]),
    ...['-p', `127.0.0.1:${port}:3000`, ...publish, ...envArgs, image],
  ]
}

/** The image's node user, which owns /data and every process in the container. */
export const NODE_UID = 1000

/** A directory on the host for a container's volume, owned by the image's node user. */
export async function volumeDir(parent: string, name: string, owner = NODE_UID): Promise<string> {
  const dir = join(parent, name)
  await mkdir(dir, { mode: 0o700 })
  await chown(dir, owner, owner)
  return dir
}

/** Waits until the site's /healthz answers 200. */
export async function waitForHealth(url: string, ms = 90_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const status = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
  }
  throw new Error(`${url}/healthz did not answer 200 within ${ms / 1000} s`)
}
