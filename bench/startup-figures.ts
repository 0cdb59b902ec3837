import {
  emptyDataDir,
  markBuildStale,
  type StartTiming,
  startAndTime,
  timeServerBundle,
  timeViteBuild,
} from './startup'
import { median } from './stats'
import type { Row, Track } from './table'

const STARTS = 3
const FIRST_START_S = 5
const RESTART_S = 1.5

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const describeTiming = (timing: StartTiming) =>
  `/healthz ${seconds(timing.healthzMs)}, / ${seconds(timing.homeMs)}`
const within = (timing: StartTiming, limitS: number) =>
  Math.max(timing.healthzMs, timing.homeMs) <= limitS * 1000
const medianOf = (timings: StartTiming[]): StartTiming => ({
  healthzMs: median(timings.map((timing) => timing.healthzMs)),
  homeMs: median(timings.map((timing) => timing.homeMs)),
})

/** Starts an empty DATA_DIR, stops it, and (unless `build`) starts the same one again. */
async function startTwice(track: Track, build: boolean) {
  const data = await emptyDataDir()
  track(() => data.cleanup())
  try {
    const first = await startAndTime(data.dir, { build, track })
    await first.stop()
    if (build) return { first: first.timing }
    const again = await startAndTime(data.dir, { track })
    await again.stop()
    return { first: first.timing, restart: again.timing }
  } finally {
    await data.cleanup()
  }
}

/**
 * Time from spawning the server to its first 200 (polled every 10 ms): `vite build` alone, a first
 * start that builds (a fresh clone), first starts on an empty DATA_DIR (initdb and migrations) and
 * restarts of the same DATA_DIR, median of 3.
 */
export async function startupFigures(
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  log('Start-up: vite build, then a first start that builds')
  const buildMs = await timeViteBuild()
  await markBuildStale()
  const { first: withBuild } = await startTwice(track, true)

  log(`Start-up: ${STARTS} first starts on an empty DATA_DIR, each followed by a restart`)
  const firsts: StartTiming[] = []
  const restarts: StartTiming[] = []
  for (let run = 0; run < STARTS; run++) {
    const { first, restart } = await startTwice(track, false)
    firsts.push(first)
    if (restart) restarts.push(restart)
  }
  const boots: number[] = []
  for (let run = 0; run < STARTS; run++) boots.push(await timeServerBundle())
  const first = medianOf(firsts)
  const restart = medianOf(restarts)
  return {
    rows: [
      { metric: 'vite build (npm run build)', value: seconds(buildMs), target: '' },
      {
        metric: 'First start, build included (dist stale, empty DATA_DIR): first 200',
        value: describeTiming(withBuild),
        target: `<= ${FIRST_START_S} s`,
        ok: within(withBuild, FIRST_START_S),
      },
      {
        metric: `First start, built, empty DATA_DIR (initdb, migrations): first 200, median of ${STARTS}`,
        value: describeTiming(first),
        target: `<= ${FIRST_START_S} s`,
        ok: within(first, FIRST_START_S),
      },
      {
        metric: `Restart, same DATA_DIR: first 200, median of ${STARTS}`,
        value: describeTiming(restart),
        target: `<= ${RESTART_S} s`,
        ok: within(restart, RESTART_S),
      },
      {
        metric: `Node + the server's bundle alone (in every start above), median of ${STARTS}`,
        value: seconds(median(boots)),
        target: '',
      },
    ],
    results: { buildMs, withBuild, firsts, restarts, boots },
  }
}
