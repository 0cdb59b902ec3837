import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { entryArgs } from '../../harness/test-bundle'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const RACERS = 12

function outputOf(child: ChildProcess): () => string {
  let text = ''
  child.stdout?.on('data', (chunk) => {
    text += chunk
  })
  child.stderr?.on('data', (chunk) => {
    text += chunk
  })
  return () => text
}

describe("DATA_DIR's lock", () => {
  const parent = mkdtemp(join(tmpdir(), 'lab-site-lock-race-'))
  afterAll(async () => rm(await parent, { recursive: true, force: true }))

  it('many processes racing on a stale lock: exactly one wins, the others name it', async () => {
    const dataDir = join(await parent, 'data')
    const signals = join(await parent, 'signals')
    await mkdir(dataDir, { mode: 0o700 })
    await mkdir(signals)
    // A lock left by a process that is gone (its pid is free again), as after kill -9.
    const dead = spawnSync('true').pid
    await writeFile(
      join(dataDir, 'server.lock'),
      JSON.stringify({ pid: dead, started: '1', purpose: 'server', since: '2024-01-01T00:00:00Z' }),
      { mode: 0o600 },
    )
    const racers = Array.from({ length: RACERS }, () =>
      spawn(process.execPath, [...entryArgs('lock-racer'), dataDir, signals], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    )
    const outputs = racers.map(outputOf)
    for (let i = 0; i < 3000 && !outputs.every((output) => output().includes('ready')); i++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    await writeFile(join(signals, 'go'), '')
    for (let i = 0; i < 3000 && !outputs.every((output) => /won|refused/.test(output())); i++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    await writeFile(join(signals, 'done'), '')
    await Promise.all(racers.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)))

    const results = outputs.map((output) => output())
    expect(results.filter((text) => text.includes('won'))).toHaveLength(1)
    const refused = results.filter((text) => text.includes('refused'))
    expect(refused).toHaveLength(RACERS - 1)
    for (const text of refused) expect(text).toMatch(/is in use by another racer \(pid \d+\)/)
    // Released at the end, and nothing of the race left behind.
    expect(await readdir(dataDir)).toEqual([])
  }, 120_000)
})
