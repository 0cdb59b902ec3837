import { once } from 'node:events'
import { PassThrough, Readable } from 'node:stream'
import { type Context, type Handler, Hono, type MiddlewareHandler } from 'hono'
import {
  BadCursorError,
  countByStatus,
  countEntries,
  exportCsv,
  pageEntries,
  presentSources,
  readSort,
  removeEntry,
  tagsPresent,
} from '../../server/admin/entries'
import { signupsByAgent, signupsPerDay, sourcesSummary } from '../../server/admin/funnel'
import {
  type Database,
  maskEmails,
  oneLine,
  SITE_STOPPED,
  SiteStoppedError,
} from '../../server/admin/runtime'
import { bodyLimits } from './body-limits'
import { actorOf } from './studio-actor'
import type { StudioFile } from './studio-files'
import { studioFilter } from './studio-filter'
import { printableJson } from './studio-printable'

export const PAGE_SIZE = 25
const MAX_SEARCH = 254
/** The source filter offers this many names at most (studio-queries.ts), and the tag filter as many tags. */
export const SOURCES_OFFERED = 50

// Only the studio's own files run or load; its answers are never cached, framed or referred on.
const HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  // The token travels in Authorization: no cache may hand one caller's answer to another.
  Vary: 'Authorization, apikey',
}

function parseRange(value: string | undefined): number | 'all' | undefined {
  if (value === undefined) return 30
  if (value === 'all') return 'all'
  return value === '30' || value === '90' ? Number(value) : undefined
}

/** One row of a studio's route table: a method, a path, and what answers it (steps before the handler). */
export interface StudioRoute {
  method: 'GET' | 'POST'
  path: string
  handlers: readonly Handler[]
}

/**
 * The studio: its page and a small JSON API over the owner's data functions. No CORS headers: only
 * the page itself, from the same origin, may read the answers. The same app serves the local
 * studio (`waitlist studio`) and the team studio at /studio, behind the one guard
 * (owner/team-studio/team-guard.ts), which checks the session, the Origin and the role each route
 * needs in the route table (owner/team-studio/studio-routes.ts), and names who asks for the record.
 * This file mounts the rows it is given and registers no route of its own. Every body is bounded
 * (body-limits.ts) once the guard has passed it: the guard reads no body, so one it refuses is
 * never read. Any other GET is one of the page's files.
 */
export function createStudioApp(options: {
  /** Runs before every route: refuses what it must, and names the actor. */
  guard: MiddlewareHandler
  /** The route tables' rows: the API, and the sign-in's or the local link's own. */
  routes: readonly StudioRoute[]
  files: ReadonlyMap<string, StudioFile>
  /** No server runs the embedded database now (studio-database.ts). */
  stopped?: () => Promise<boolean>
}): Hono {
  const { files } = options
  const app = new Hono()

  app.use(async (c, next) => {
    await next()
    // A route may set a policy of its own (the invitation preview's frame).
    for (const [name, value] of Object.entries(HEADERS))
      if (!c.res.headers.has(name)) c.res.headers.set(name, value)
  })
  app.use(options.guard, bodyLimits())
  app.use('/api/*', printableJson())
  for (const route of options.routes) app.on(route.method, route.path, ...(route.handlers as [Handler]))

  app.notFound((c) => {
    const file = c.req.method === 'GET' || c.req.method === 'HEAD' ? files.get(c.req.path) : undefined
    if (!file) return c.text('Not found', 404)
    return c.body(new Uint8Array(file.body), 200, { 'Content-Type': file.contentType })
  })

  app.onError(async (error, c) => {
    // The server stopped, or is restarting, under the studio: said plainly, and the page retries.
    const stopped = error instanceof SiteStoppedError || (await options.stopped?.().catch(() => false))
    if (stopped) return c.json({ error: SITE_STOPPED, stopped: true }, 503)
    console.error(oneLine(maskEmails(`The studio failed on ${c.req.method} ${c.req.path}: ${String(error)}`)))
    return c.json({ error: 'The studio could not answer; see its terminal.' }, 500)
  })

  return app
}

/** The sources by visits and signups over 30 or 90 days, or all, and the signups agents made, as `sources` gives them. */
export async function sources(c: Context, db: Database): Promise<Response> {
  const days = parseRange(c.req.query('days'))
  if (days === undefined) return c.json({ error: 'days must be 30, 90 or all' }, 400)
  const [summary, agents] = await Promise.all([sourcesSummary(db, days), signupsByAgent(db, days)])
  return c.json({ ...summary, agents })
}

/** The total, the entries by status, the chart's days, and the sources and tags the filters offer. */
export async function summary(c: Context, db: Database): Promise<Response> {
  const days = parseRange(c.req.query('days'))
  if (days === undefined) return c.json({ error: 'days must be 30, 90 or all' }, 400)
  const [total, statuses, perDay, sources, tags] = await Promise.all([
    countEntries(db),
    countByStatus(db),
    signupsPerDay(db, days),
    presentSources(db, SOURCES_OFFERED + 1),
    tagsPresent(db, SOURCES_OFFERED + 1),
  ])
  return c.json({
    total,
    statuses,
    days: perDay,
    sources: sources.slice(0, SOURCES_OFFERED),
    moreSources: sources.length > SOURCES_OFFERED,
    tags: tags.slice(0, SOURCES_OFFERED),
    moreTags: tags.length > SOURCES_OFFERED,
  })
}

/**
 * A page of the list: the first, or the one after (`after`) or before (`before`) a cursor it gave,
 * of the entries the search (`q`) and the filter (studio-filter.ts) match, in the order asked
 * (`sort` a column, `order` asc or desc; newest first without them), with how many match.
 */
export async function entries(c: Context, db: Database): Promise<Response> {
  const search = c.req.query('q')?.trim() ?? ''
  const after = c.req.query('after')
  const before = c.req.query('before')
  if (search.length > MAX_SEARCH) return c.json({ error: `search at most ${MAX_SEARCH} characters` }, 400)
  if (after !== undefined && before !== undefined) return c.json({ error: 'after or before, not both' }, 400)
  const read = studioFilter(c)
  if ('problem' in read) return c.json({ error: read.problem }, 400)
  const sorted = readSort(c.req.query('sort'), c.req.query('order'))
  if ('problem' in sorted) return c.json({ error: sorted.problem }, 400)
  try {
    const { filter } = read
    const page = await pageEntries(db, { search, filter, sort: sorted.sort, after, before, limit: PAGE_SIZE })
    return c.json({ ...page, pageSize: PAGE_SIZE })
  } catch (error) {
    if (error instanceof BadCursorError) return c.json({ error: error.message }, 400)
    throw error
  }
}

/**
 * The same file as `export`, streamed from the database as it is read. The answer starts once the
 * database has sent its first rows, so one that cannot be read gets a 500, not an empty 200 file.
 */
export async function downloadCsv(c: Context, db: Database): Promise<Response> {
  const body = new PassThrough()
  const done = exportCsv(db, body, { actor: actorOf(c), detail: 'the whole list, from the studio' })
  await Promise.race([once(body, 'readable'), done])
  done.catch((error: NodeJS.ErrnoException) => {
    // A download the browser gave up on is not the studio's failure.
    if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE')
      console.error(oneLine(maskEmails(`The studio's CSV download failed: ${String(error)}`)))
  })
  return c.body(Readable.toWeb(body) as ReadableStream, 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': 'attachment; filename="waitlist.csv"',
  })
}

export async function remove(c: Context, db: Database): Promise<Response> {
  // A form on another site cannot send JSON without a preflight, which gets no CORS answer.
  if (!c.req.header('content-type')?.startsWith('application/json'))
    return c.json({ error: 'send JSON: {"email": "…"}' }, 415)
  const body = (await c.req.json().catch(() => undefined)) as { email?: unknown } | undefined
  if (typeof body?.email !== 'string' || body.email === '' || body.email.length > MAX_SEARCH)
    return c.json({ error: 'send JSON: {"email": "…"}' }, 400)
  return c.json({ removed: await removeEntry(db, body.email, actorOf(c)) })
}
