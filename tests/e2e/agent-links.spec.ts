import { expect, test } from './fixtures'

/**
 * What Chromium itself sends when a person opens '/', unchanged: it must get the HTML, byte for byte
 * what an Accept-less client gets, with the llms.txt v2 links beside it (ADR 051).
 */
test('a browser navigating to / gets the HTML page, byte-identical, with the agent links', async ({
  page,
  server,
}) => {
  const response = await page.goto('/')
  if (!response) throw new Error('no response for /')
  const accept = (await response.request().allHeaders()).accept ?? ''
  expect(accept).toMatch(/^text\/html,/)
  expect(accept).not.toContain('text/markdown')
  const headers = await response.allHeaders()
  expect(headers['content-type']).toBe('text/html; charset=utf-8')
  expect(headers.vary).toBe('Accept, Accept-Encoding')
  expect(headers.link).toContain('</index.md>; rel="alternate"; type="text/markdown"')
  const plain = Buffer.from(await (await fetch(`${server.url}/`)).arrayBuffer())
  expect((await response.body()).equals(plain)).toBe(true)
  await expect(page.locator('link[rel="describedby"]')).toHaveAttribute('href', '/llms.txt')
  await expect(page.locator('link[rel="alternate"][type="text/markdown"]')).toHaveAttribute(
    'href',
    '/index.md',
  )
})
