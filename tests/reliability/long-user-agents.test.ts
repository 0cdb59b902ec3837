import { afterAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { pool, rssKiB } from './support'

/**
 * What the security review tried (issue 34): page loads that each send a distinct 15 KB
 * User-Agent, from one client address. Nothing a client sends may decide the server's memory
 * (ADR 024): the caches of the request path are bounded in bytes, so the server grows by what
 * its caches hold at most, not by what the clients sent.
 */
const LOADS = Number(process.env.LONG_USER_AGENT_LOADS ?? 10_000)
const CLIENTS = 8
const LIMIT_MIB = 64

let server: TestServer | undefined
afterAll(async () => {
  await server?.cleanup()
})

/** A browser's User-Agent, made 15 KB long by a tail of its own for each load. */
function longUserAgent(index: number): string {
  const head = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.${index}.0 Safari/537.36 `
  return (
    head +
    String(index)
      .padStart(8, '0')
      .repeat(Math.ceil((15 * 1024 - head.length) / 8))
      .slice(0, 15 * 1024 - head.length)
  )
}

async function load(url: string, index: number): Promise<number> {
  const response = await fetch(`${url}/?utm_source=long-agents`, {
    headers: { 'user-agent': longUserAgent(index) },
  })
  await response.arrayBuffer()
  return response.status
}

describe('long User-Agents', () => {
  it(`${LOADS.toLocaleString('en')} page loads, each with its own 15 KB User-Agent, grow the server by at most ${LIMIT_MIB} MiB`, {
    timeout: 60_000 + LOADS * 10,
  }, async () => {
    server = await startTestServer({ env: { COUNT_SOURCES_FLUSH_MS: '1000' } })
    const target = server
    // Warm up: the page, the routes and the caches' ordinary entries, so what follows is the attack.
    await pool(
      CLIENTS,
      Array.from({ length: 200 }, (_, index) => () => load(target.url, -1 - index)),
    )
    const before = rssKiB(target)
    let peak = before
    const statuses = await pool(
      CLIENTS,
      Array.from({ length: LOADS }, (_, index) => async () => {
        const status = await load(target.url, index)
        if (index % 500 === 0) peak = Math.max(peak, rssKiB(target))
        return status
      }),
    )
    const after = rssKiB(target)
    peak = Math.max(peak, after)
    const mib = (kib: number) => (kib / 1024).toFixed(1)
    console.log(
      `long User-Agents: ${LOADS} loads, server RSS ${mib(before)} MiB before, ${mib(peak)} MiB at most, ${mib(after)} MiB after`,
    )
    expect(statuses.filter((status) => status !== 200)).toEqual([])
    expect((peak - before) / 1024).toBeLessThanOrEqual(LIMIT_MIB)
  })
})
