import { serveDirectory, signedHeaders } from '../harness/signing-agent'
import { parseTrustList } from '../server/agents/trust-list'
import { SignedAgents } from '../server/agents/verify-agent'
import type { Queryable } from '../server/db/database'

/**
 * `npx tsx bench/agent-verify.ts [N]`: the CPU one signed signup's Web Bot Auth check costs this
 * server once the agent's directory is cached (issue 67: under 1 ms). N requests signed beforehand
 * with RFC 9421's Ed25519 test key, each with its own nonce, checked one after another; the nonce's
 * claim is PostgreSQL's work (one statement, verify-agent.ts), answered here by a stub so the figure
 * is this process's CPU alone: parsing, the directory look-up, the signature base and Ed25519.
 */
const count = Number(process.argv[2] ?? 2000)
const directory = await serveDirectory()
try {
  const site = 'http://127.0.0.1:3000'
  const claimed: Queryable = {
    query: async <Row>() => [{ fresh: true }] as Row[],
    run: async () => ({ rows: [], affected: 0 }),
    exec: async () => {},
  }
  const agents = new SignedAgents({
    trust: parseTrustList(`${directory.origin}=Bench agent`),
    db: claimed,
    siteOrigins: () => [site],
  })
  const url = `${site}/rest/v1/waitlist`
  const requests: Request[] = []
  for (let index = 0; index < count + 100; index += 1) {
    const headers = await signedHeaders(url, { signatureAgent: `"${directory.origin}"`, expiresIn: 300 })
    requests.push(new Request(url, { method: 'POST', headers }))
  }
  // The first fetch of the directory, and the JIT's warm-up, before anything is measured.
  for (const request of requests.splice(0, 100)) {
    const proof = await agents.signedAgentOf(request)
    if (!proof?.verified) throw new Error(`not verified: ${proof?.failure}`)
  }
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (const request of requests) {
    const proof = await agents.signedAgentOf(request)
    if (!proof?.verified) throw new Error(`not verified: ${proof?.failure}`)
  }
  const used = process.cpuUsage(cpu)
  const wall = performance.now() - started
  const perCheck = (used.user + used.system) / count
  console.log(
    `${count} signed requests checked, directory cached: ${perCheck.toFixed(1)} µs CPU each ` +
      `(${((wall * 1000) / count).toFixed(1)} µs wall), ${directory.requests()} directory fetch`,
  )
  if (perCheck >= 1000) process.exitCode = 1
} finally {
  await directory.close()
}
