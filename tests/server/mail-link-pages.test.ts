import { describe, expect, it } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { postWaitlist } from '../../harness/waitlist-api'
import { loadApiKeys } from '../../server/auth/api-keys'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { entryStatus } from '../support/entry-status'
import { fileServer } from '../support/file-server'

/**
 * An unsubscribe link opened again, after it did its work (or after a complaint did the same):
 * its GET says it is done, with no button asking again, and still changes nothing.
 */
const words = mailWords.pages.unsubscribe
const lab = (text: string) => text.replaceAll('{lab}', 'Tessel Labs')

const live = fileServer({ env: { LOG_LEVEL: 'error' }, database: true })

async function unsubscribeUrl(email: string): Promise<string> {
  expect((await postWaitlist(live.server, { email })).status).toBe(201)
  const keys = linkKeys((await loadApiKeys({ dataDir: live.server.dataDir, databaseUrl: undefined })).secret)
  return `${live.server.url}/unsubscribe?t=${sealAddress(keys.unsubscribe, email)}`
}

async function page(url: string): Promise<{ status: number; html: string }> {
  const answer = await fetch(url)
  return { status: answer.status, html: await answer.text() }
}

const asks = (html: string) => html.includes(lab(words.line)) && html.includes('<form method="post"')
const saysDone = (html: string) =>
  html.includes(`<h1>${words.done}</h1>`) && html.includes(lab(words.doneLine)) && !html.includes('<form')

describe('GET of an unsubscribe link', () => {
  it('asks once; after the POST, says it is done, with no button, and changes nothing', async () => {
    const email = 'used.link@example.com'
    const url = await unsubscribeUrl(email)
    const first = await page(url)
    expect([first.status, asks(first.html)]).toEqual([200, true])
    expect(await entryStatus(live.database.db, email)).toBe('waiting')
    expect((await fetch(url, { method: 'POST', body: 'List-Unsubscribe=One-Click' })).status).toBe(200)
    for (let i = 0; i < 2; i++) {
      const again = await page(url)
      expect([again.status, saysDone(again.html), asks(again.html)]).toEqual([200, true, false])
    }
    expect(await entryStatus(live.database.db, email)).toBe('unsubscribed')
  })

  it('says it is done for an address that complained, and leaves it complained', async () => {
    const email = 'complained.link@example.com'
    const url = await unsubscribeUrl(email)
    await live.database.db.query(
      `insert into private.entry_status (waitlist_id, status)
       select id, 'complained' from public.waitlist where email = $1`,
      [email],
    )
    const shown = await page(url)
    expect([shown.status, saysDone(shown.html)]).toEqual([200, true])
    expect(await entryStatus(live.database.db, email)).toBe('complained')
  })
})
