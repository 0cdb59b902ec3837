import { describe, expect, it } from 'vitest'
import { outcomeMessageFor, outcomeMessages } from '../../contract/waitlist-outcome'
import { DIST_DIR } from '../../server/base/paths'
import { loadStaticSite } from '../../server/http/static-site'
import { fileServer } from '../support/file-server'

/**
 * With scripts off, the form's POST is answered by a redirect to /?waitlist=<outcome>. That page
 * must say, in the specification's words, what happened; the plain page stays as it was.
 */
const SITE = 'https://lab.example.com'
// The site is built once for the run, before any file (tests/setup/global-setup.ts).
const live = fileServer({ env: { SITE_URL: SITE, LOG_LEVEL: 'error' } })

const decode = (html: string) =>
  html.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))

async function page(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${live.server.url}${path}`, { headers })
  return { response, html: await response.text() }
}

/** The answer region's role and its words as a reader gets them (tags dropped, entities decoded). */
function answerOf(html: string) {
  const region = html.match(/<section id="waitlist-answer"[^>]*>(.*?)<\/section>/)
  if (!region) return undefined
  const inner = region[1] ?? ''
  const role = inner.match(/role="(\w+)"/)?.[1]
  const words = decode(inner.replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
  return { role, words, label: region[0].match(/aria-label="([^"]+)"/)?.[1] }
}

async function submit(email: string) {
  const response = await fetch(`${live.server.url}/`, {
    method: 'POST',
    body: new URLSearchParams({ email }),
    redirect: 'manual',
  })
  return response.headers.get('location') ?? ''
}

describe('the page a no-script submit lands on', () => {
  it('submitted, already registered, error: each page shows its title and text in a status region', async () => {
    const email = `no-script.${process.pid}.${Date.now()}@example.com`
    const landings = {
      submitted: await submit(email),
      already_registered: await submit(email.toUpperCase()),
      error: await submit(''),
    }
    for (const [status, location] of Object.entries(landings)) {
      expect(location).toBe(`/?waitlist=${status}`)
      const { response, html } = await page(location)
      expect(response.status).toBe(200)
      const { title, description } = outcomeMessages[status as keyof typeof landings]
      expect(answerOf(html)).toEqual({
        role: status === 'submitted' ? 'status' : 'alert',
        words: `${title} ${description} ×`,
        label: 'Notifications',
      })
      // The rest is the page itself, its address filled in as on '/'.
      expect(html).toContain('Request Access')
      expect(html).toContain(`href="${SITE}/"`)
      expect(html).not.toContain('__SITE_URL__')
    }
  })

  it('the plain page, and any other query, is the home page unchanged: no answer, the same ETag', async () => {
    const home = await page('/')
    expect(answerOf(home.html)).toBeUndefined()
    for (const path of ['/?waitlist=bogus', '/?waitlist=', '/?utm_source=news', '/?waitlist=toString']) {
      const other = await page(path)
      expect(other.html).toBe(home.html)
      expect(other.response.headers.get('etag')).toBe(home.response.headers.get('etag'))
    }
    const answer = await page('/?waitlist=submitted')
    expect(answer.response.headers.get('etag')).not.toBe(home.response.headers.get('etag'))
    // Exactly the home page with the region added at the top of the body.
    expect(answer.html.replace(/<section id="waitlist-answer".*?<\/section>/, '')).toBe(home.html)
  })

  it('compressed like the home page, and revalidated by its own ETag', async () => {
    for (const encoding of ['br', 'gzip']) {
      const { response, html } = await page('/?waitlist=error', { 'Accept-Encoding': encoding })
      expect(response.headers.get('content-encoding')).toBe(encoding)
      expect(answerOf(html)?.words).toContain(outcomeMessages.error.description)
    }
    const first = await page('/?waitlist=already_registered')
    const again = await fetch(`${live.server.url}/?waitlist=already_registered`, {
      headers: { 'If-None-Match': first.response.headers.get('etag') ?? '' },
    })
    expect(again.status).toBe(304)
  })

  it('with confirmation on, the success answer asks the visitor to check the inbox, as the toast does', async () => {
    const pages = (await loadStaticSite(DIST_DIR, 'anon-key', true)).answers
    if (!pages) throw new Error('no answer pages')
    const { title, description } = outcomeMessageFor('submitted', true)
    expect(description).toContain('Check your inbox')
    expect(answerOf(pages.submitted.body.toString())?.words).toBe(`${title} ${description} ×`)
    // The errors keep the specification's words either way.
    expect(answerOf(pages.error.body.toString())?.words).toContain(outcomeMessages.error.description)
  })
})
