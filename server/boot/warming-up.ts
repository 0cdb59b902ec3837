import type { Logger } from '../base/log'
import type { StartUp } from '../http/app'
import { type WarmedUp, warmUp, warmUpToken } from '../http/warm-up'

/** The start-up as the app sees it (/healthz, the access log), and how long its warm-up may take. */
export interface StartingUp extends StartUp {
  /** WARM_UP_MS. */
  ms: number
  done(): void
}

export function startingUp(ms: number): StartingUp {
  let ready = false
  return {
    token: warmUpToken(),
    ms,
    ready: () => ready,
    done() {
      ready = true
    },
  }
}

export interface Listened {
  /** The address the server listens on. */
  url: string
  log: Logger
  /** How many of the pool's connections were readied before it listened. */
  connections: number
  serviceKey: string
  /** `npm run dev`: Vite serves the pages, and they are not the ones visitors get: no warm-up. */
  devPages: boolean
}

/**
 * Once it listens: the warm-up through the server's own listener (server/http/warm-up.ts), then
 * ready (/healthz 200). A warm-up that fails is logged, and the server serves cold.
 */
export async function warmUpListening(
  startUp: StartingUp,
  { url, log, connections, serviceKey, devPages }: Listened,
): Promise<void> {
  let warmed: WarmedUp | undefined
  try {
    if (!devPages)
      warmed = await warmUp({ url: loopback(url), token: startUp.token, serviceKey, ms: startUp.ms })
  } catch (error) {
    log.error('Could not warm up (serving without):', error)
  } finally {
    startUp.done()
  }
  log.info(warmedUp(warmed, connections))
}

/** A wildcard host (0.0.0.0, ::) is reached on loopback. */
function loopback(url: string): string {
  const address = new URL(url)
  if (address.hostname === '0.0.0.0') address.hostname = '127.0.0.1'
  if (address.hostname === '[::]') address.hostname = '[::1]'
  return address.origin
}

/** What the warm-up did; under `npm run dev`, the pool alone. */
function warmedUp(warmed: WarmedUp | undefined, connections: number): string {
  const pool = `${connections} database connections ready`
  if (!warmed) return `Warmed up: ${pool}`
  const { pages, signups, ms } = warmed
  const count = (n: number) => n.toLocaleString('en-US')
  return `Warmed up in ${(ms / 1000).toFixed(2)} s: ${count(pages)} page loads and ${count(signups)} signups (nothing kept), ${pool}`
}
