import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  BASE_IMAGE,
  cleanCopyOfTree,
  containerEngine,
  engineRun,
  engineTry,
  imageSize,
  runArgs,
} from '../harness/container-engine'
import { freePort } from '../harness/postgres-cluster'
import { ROOT } from '../server/base/paths'
import { httpStatus } from './startup'
import { median } from './stats'
import type { Row, Track } from './table'

const IMAGE = 'localhost/lab-site-bench:latest'
const STARTS = 3
const MiB = 1024 * 1024
const IMAGE_BUDGET_MIB = 100

/** Milliseconds from `run` (or `start`) returning to the first 200 on `/`, polled every 10 ms. */
async function firstOk(url: string, began: number): Promise<number> {
  for (const end = began + 120_000; performance.now() < end; await sleep(10)) {
    if ((await httpStatus(url)) === 200) return performance.now() - began
  }
  throw new Error(`no 200 from ${url} within 120 s`)
}

/**
 * The image the deploy guide ships: its size above the base image, and the time to the first 200
 * after `run` on a fresh volume and after a restart of the same container (median of 3).
 */
export async function containerFigures(
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const { engine, reason } = containerEngine()
  if (!engine) {
    log(`container: skipped, ${reason}`)
    return {
      rows: [{ metric: 'Container image', value: `not measured: ${reason}`, target: '' }],
      results: {},
    }
  }
  const run = (args: string[]) => engineRun(engine, args, { timeoutMs: 15 * 60_000 })
  log(`container: building the image with ${engine} from a clean copy of the tree`)
  const tree = await cleanCopyOfTree(ROOT)
  const buildBegan = performance.now()
  try {
    const haveBase = (await engineTry(engine, ['image', 'exists', BASE_IMAGE])).code === 0
    await run(['build', ...(haveBase ? ['--pull=never'] : []), '--format', 'docker', '-t', IMAGE, tree.dir])
  } finally {
    await tree.remove()
  }
  const buildMs = performance.now() - buildBegan
  track(() => engineTry(engine, ['rmi', '-f', IMAGE]))
  const size = await imageSize(engine, IMAGE)
  const above = (size - (await imageSize(engine, BASE_IMAGE))) / MiB

  const work = await mkdtemp(join(tmpdir(), 'lab-site-bench-container-'))
  track(() => rm(work, { recursive: true, force: true }))
  const fresh: number[] = []
  const restarted: number[] = []
  for (let i = 0; i < STARTS; i++) {
    const data = join(work, `data-${i}`)
    await mkdir(data, { mode: 0o700 })
    await chown(data, 1000, 1000)
    const port = await freePort()
    const name = `lab-site-bench-${process.pid}-${i}`
    track(() => engineTry(engine, ['rm', '-f', name]))
    const url = `http://127.0.0.1:${port}/`
    let began = performance.now()
    await run(runArgs({ image: IMAGE, name, data, port }))
    fresh.push(await firstOk(url, began))
    await run(['stop', '-t', '10', name])
    began = performance.now()
    await run(['start', name])
    restarted.push(await firstOk(url, began))
    await run(['rm', '-f', name])
  }
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
  return {
    rows: [
      {
        metric: 'Container image: size / above its base',
        value: `${(size / MiB).toFixed(0)} MiB / ${above.toFixed(1)} MiB (built in ${(buildMs / 1000).toFixed(0)} s)`,
        target: `<= ${IMAGE_BUDGET_MIB} MiB above`,
        ok: above <= IMAGE_BUDGET_MIB,
      },
      {
        metric: `Container: run on a fresh volume / restart, first 200 (median of ${STARTS})`,
        value: `${seconds(median(fresh))} / ${seconds(median(restarted))}`,
        target: '',
      },
    ],
    results: { engine, sizeBytes: size, aboveBaseMiB: above, buildMs, freshMs: fresh, restartMs: restarted },
  }
}
