import { chromium } from '@playwright/test'
import { requestAccessTool } from '../contract/agent-tool'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { bundleForTests } from '../harness/test-bundle'
import { startTestServer } from '../harness/test-server'
import { runCli } from '../harness/waitlist-cli'
import { buildIfStale } from '../server/boot/build-if-stale'
import { linkKeys, sealAddress } from '../server/mail/messages/link-seals'

/**
 * Regenerates the picture of docs/privacy.md: `npx tsx scripts/your-data-screenshot.ts`.
 *   docs/your-data-light-390.png  the person's own page, 390 px wide, light: an agent's signup
 *     through /mcp (the client named itself; its answers proposed), as its person opens it
 * It prints the entry's consent record as `show` does, for the guide.
 */
const EMAIL = 'ada@example.com'

await buildIfStale(console.log)
await bundleForTests()
const server = await startTestServer({ env: { TRUST_PROXY_HEADER: 'x-forwarded-for' } })
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
try {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'Claude Code', version: '2.3.1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  const { name } = requestAccessTool
  const answer = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'Mcp-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': name,
      'x-forwarded-for': '203.0.113.9',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: { email: EMAIL, role: 'Research', organisation: 'Analytical Engines' },
        _meta: meta,
      },
    }),
  })
  if (!answer.ok) throw new Error(`the MCP signup failed: ${answer.status}`)
  console.log((await runCli(server.env, 'show', EMAIL)).stdout)
  const url = `${server.url}/your-data?t=${sealAddress(linkKeys(server.secret).yourData, EMAIL)}`
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'light' })
  await page.goto(url)
  await page.screenshot({ path: 'docs/your-data-light-390.png', fullPage: true })
  console.log('Wrote docs/your-data-light-390.png')
} finally {
  await browser.close()
  await server.cleanup()
}
