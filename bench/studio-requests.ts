import { peakRssKiB } from '../harness/measured-cli'
import type { StudioProcess } from '../harness/studio-process'
import { median } from './stats'

export interface RequestTiming {
  name: string
  path: string
  status: number
  /** Milliseconds from sending the request to the end of its body, each run. */
  runsMs: number[]
  medianMs: number
  maxMs: number
  bytes: number
}

const RUNS = 5

/** One request as the studio's page sends it: the token as a Bearer, from its own origin. */
async function get(studio: StudioProcess, path: string) {
  const started = performance.now()
  const response = await fetch(`${studio.origin}${path}`, {
    headers: { Authorization: `Bearer ${studio.token}`, 'Sec-Fetch-Site': 'same-origin' },
  })
  const body = await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - started, bytes: body.byteLength }
}

/** Each request once to warm up, then RUNS times in turn (so drift on a shared machine hits all alike). */
export async function timeRequests(
  studio: StudioProcess,
  requests: { name: string; path: string }[],
): Promise<RequestTiming[]> {
  for (const request of requests) await get(studio, request.path)
  const runs = requests.map(() => [] as Awaited<ReturnType<typeof get>>[])
  for (let run = 0; run < RUNS; run++)
    for (const [index, request] of requests.entries()) runs[index]?.push(await get(studio, request.path))
  return requests.map((request, index) => {
    const each = runs[index] ?? []
    const runsMs = each.map((one) => one.ms)
    return {
      ...request,
      status: each.at(-1)?.status ?? 0,
      runsMs,
      medianMs: median(runsMs),
      maxMs: Math.max(...runsMs),
      bytes: each.at(-1)?.bytes ?? 0,
    }
  })
}

/** The CSV download, read to its end by a slow-enough client, and the studio's peak RSS after it. */
export async function timeDownload(
  studio: StudioProcess,
): Promise<{ ms: number; bytes: number; studioPeakMiB: number }> {
  const { ms, bytes, status } = await get(studio, '/api/export.csv')
  if (status !== 200) throw new Error(`the studio's CSV download answered ${status}`)
  return { ms, bytes, studioPeakMiB: (peakRssKiB(studio.process.pid ?? 0) ?? Number.NaN) / 1024 }
}
