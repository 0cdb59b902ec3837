import type { Context } from 'hono'
import { mailWords } from '../../../contract/site-config'
import type { Logger } from '../../base/log'
import type { Database } from '../../db/database'
import type { LinkKeys } from '../../mail/messages/link-seals'
import { openAddress } from '../../mail/messages/link-seals'
import { eraseEntry } from '../../waitlist/erasure'
import { personData } from '../../waitlist/person-data'
import { renderMailLinkPage } from '../mail-links/mail-link-page'
import { readBody } from '../middleware/request-guards'
import { confirmErasurePage, yourDataPage } from './your-data-page'

export interface YourDataDeps {
  db: Database
  log: Logger
  keys: LinkKeys
  /** How many days backups may keep an erased entry: set while the server keeps a continuous backup. */
  backupDays?: number
}

export const YOUR_DATA_PATH = '/your-data'

const pages = mailWords.pages
const words = pages.yourData
const INVALID = { status: 400, title: pages.invalid, line: pages.invalidLine }
const UNANSWERED = { status: 503, title: pages.busy, line: pages.busyLine }
const GONE = { status: 200, title: words.notListed, line: pages.gone }
const TEST = { status: 200, title: words.title, line: pages.test }
// Who erased, as the team's record names it: the person, from this page; never their address.
const PERSON = { name: 'your-data: the person' }
// "Erase me" and its confirmation post one field at most.
const MAX_ERASE_BODY = 1024

/** The token's address, or whether it is a test send's (whose links open on nothing). */
function addressOf(c: Context, keys: LinkKeys): { email?: string; test: boolean } {
  const token = c.req.query('t') ?? ''
  const email = openAddress(keys.yourData, token)
  return { email, test: !email && openAddress(keys.testLink, token) !== undefined }
}

/**
 * The person's own page (ADR 097), reached by the signed link in every message and on the
 * unsubscribe page: GET shows what the lab holds about the address, and GET of its download gives
 * all of it as JSON; neither changes anything (ADR 037). "Erase me" is a POST whose first answer
 * asks again; the POST with `confirm=yes` erases (erasure.ts), as `remove` does, and tells the
 * webhook. Once erased, the link says the address is no longer on the list. No address is logged.
 * Its rows, with the gate and the links' write limit before each, are in server/http/site-routes.ts.
 */
export function yourDataHandlers(deps: YourDataDeps) {
  const answer = async (c: Context, show: (email: string) => Promise<Response>) => {
    const { email, test } = addressOf(c, deps.keys)
    if (test) return renderMailLinkPage(TEST)
    if (!email) return renderMailLinkPage(INVALID)
    try {
      return await show(email)
    } catch (error) {
      deps.log.error(`${c.req.path}: the database did not answer`, error)
      return renderMailLinkPage(UNANSWERED)
    }
  }
  const token = (c: Context) => c.req.query('t') ?? ''

  return {
    eraseBody: readBody(MAX_ERASE_BODY, () => renderMailLinkPage({ ...INVALID, status: 413 })),
    page: (c: Context) =>
      answer(c, async (email) => {
        const data = await personData(deps.db, email)
        return renderMailLinkPage(data ? yourDataPage(data, token(c), deps.backupDays) : GONE)
      }),
    download: (c: Context) =>
      answer(c, async (email) => {
        const data = await personData(deps.db, email)
        if (!data) return renderMailLinkPage(GONE)
        const body = JSON.stringify({ downloaded_at: new Date().toISOString(), ...data }, null, 2)
        return new Response(`${body}\n`, {
          headers: {
            'Content-Type': 'application/json; charset=utf-8',
            'Content-Disposition': 'attachment; filename="your-data.json"',
            'Cache-Control': 'no-store',
            'Referrer-Policy': 'no-referrer',
            'X-Robots-Tag': 'noindex',
          },
        })
      }),
    erase: (c: Context) =>
      answer(c, async (email) => {
        const form = new URLSearchParams(await c.req.text())
        if (form.get('confirm') !== 'yes') return renderMailLinkPage(confirmErasurePage(token(c)))
        const erased = await eraseEntry(deps.db, email, 'erased', PERSON)
        if (!erased) return renderMailLinkPage(GONE)
        return renderMailLinkPage({ status: 200, title: words.erased, line: words.erasedLine })
      }),
  }
}
