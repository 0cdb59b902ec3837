import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import { AGENT_MEDIA_TYPES } from '../../contract/agent-media-types'
import {
  ANON_KEY_PLACEHOLDER,
  CONFIRM_SIGNUPS_PLACEHOLDER,
  SITE_URL_PLACEHOLDER,
} from '../../contract/site-url'
import { type AnswerPages, answerPages } from './answer-pages'
import { inlineScriptHashes } from './inline-scripts'
import { compressed, type StaticFile } from './static-file'

export { ANON_KEY_PLACEHOLDER }

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.woff2': 'font/woff2',
}

const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.css',
  '.svg',
  '.json',
  '.webmanifest',
  '.txt',
  '.md',
  '.xml',
  '.ico',
])

export interface StaticSite {
  home: StaticFile
  notFound: StaticFile
  /** The home page answering a no-script submit, one per outcome (server/http/answer-pages.ts). */
  answers?: AnswerPages
  /** Signups are confirmed by mail (CONFIRM_SIGNUPS with a sender): the success words say so. */
  confirmSignups?: boolean
  /** Assets and public files by URL path; HTML pages are not addressable by file name. */
  files: ReadonlyMap<string, StaticFile>
  /** CSP sources for the inline scripts the two pages run (the after-paint loader). */
  scriptHashes: string[]
}

async function* walk(directory: string): AsyncGenerator<string> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else yield path
  }
}

async function readPrecompressed(path: string): Promise<Buffer | undefined> {
  return readFile(path).catch(() => undefined)
}

async function prepare(
  path: string,
  body: Buffer,
  cacheControl: string,
  fresh: boolean,
): Promise<StaticFile> {
  const extension = extname(path)
  const file: StaticFile = {
    body,
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    cacheControl,
  }
  // A file that names the site's address is compressed once, when fillInSiteUrl has written it in
  // (server/http/site-url.ts): at quality 11, compressing the home page twice was most of a start.
  if (!COMPRESSIBLE.has(extension) || body.includes(SITE_URL_PLACEHOLDER)) return file
  // Build-time .br/.gz files are used as they are; anything changed at start-up is compressed now.
  const built = fresh
    ? undefined
    : { brotli: await readPrecompressed(`${path}.br`), gzip: await readPrecompressed(`${path}.gz`) }
  return { ...file, ...(built?.brotli && built.gzip ? built : compressed(body)) }
}

/**
 * Loads the built site into memory once; it is small, and serving from memory is fastest. The
 * pages get the anon key and whether signups are confirmed by mail (the toast's words) now.
 */
export async function loadStaticSite(
  distDir: string,
  anonKey: string,
  confirmSignups = false,
): Promise<StaticSite> {
  const files = new Map<string, StaticFile>()
  let home: StaticFile | undefined
  let notFound: StaticFile | undefined
  const scriptHashes = new Set<string>()
  for await (const path of walk(distDir)) {
    if (path.endsWith('.br') || path.endsWith('.gz')) continue
    const urlPath = `/${relative(distDir, path).split(sep).join('/')}`
    // Dotfiles (the build stamp, an editor's leftovers) are not the site's; /.well-known/ is.
    if (/\/\.(?!well-known\/)/.test(urlPath)) continue
    // The studio's page is not one of the site's files: the team studio serves it under /studio (ADR 100).
    if (urlPath.startsWith('/studio/')) continue
    if (urlPath.endsWith('.html')) {
      const html = (await readFile(path, 'utf8'))
        .replaceAll(ANON_KEY_PLACEHOLDER, anonKey)
        .replaceAll(CONFIRM_SIGNUPS_PLACEHOLDER, confirmSignups ? 'on' : 'off')
      for (const hash of inlineScriptHashes(html)) scriptHashes.add(hash)
      const page = await prepare(path, Buffer.from(html), 'no-cache', true)
      if (urlPath === '/index.html') home = page
      else if (urlPath === '/404/index.html') notFound = page
      continue
    }
    const immutable = urlPath.startsWith('/assets/')
    const cacheControl = immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600'
    const file = await prepare(path, await readFile(path), cacheControl, false)
    // The agent files whose type their name does not tell: the catalog, /mcp's server card.
    files.set(urlPath, { ...file, contentType: AGENT_MEDIA_TYPES[urlPath] ?? file.contentType })
  }
  if (!home || !notFound) {
    throw new Error(`${distDir} has no prerendered index.html and 404/index.html; run npm run build`)
  }
  const answers = answerPages(home, confirmSignups)
  return { home, notFound, answers, confirmSignups, files, scriptHashes: [...scriptHashes] }
}

export function pickEncoding(
  file: StaticFile,
  acceptEncoding: string | undefined,
): { body: Buffer; encoding?: string } {
  const accepted = acceptEncoding ?? ''
  if (file.brotli && /\bbr\b/.test(accepted)) return { body: file.brotli, encoding: 'br' }
  if (file.gzip && /\bgzip\b/.test(accepted)) return { body: file.gzip, encoding: 'gzip' }
  return { body: file.body }
}

/**
 * The ETag of one encoding of a file. Its bytes differ from the others', so its strong validator
 * does too (RFC 9110 8.8.3): a cache that kept the gzip copy never revalidates the brotli one with it.
 */
function etagFor(file: StaticFile, encoding: string | undefined): string {
  return encoding === undefined ? file.etag : `${file.etag.slice(0, -1)}-${encoding}"`
}

/**
 * If-None-Match against the answer's ETag, by weak comparison (RFC 9110 13.1.2): a list of tags,
 * each possibly `W/`, matches when any names it, and `*` matches any file that exists.
 */
function noneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false
  for (const item of header.split(',')) {
    const tag = item.trim()
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true
  }
  return false
}

/** One static file's answer, before it is a Response or written to Node's: status, headers, bytes. */
export interface FileAnswer {
  status: number
  headers: Record<string, string>
  /** None for HEAD and 304. */
  body?: Buffer
}

/** The request's parts that choose a file's answer. */
export interface FileRequest {
  method: string
  acceptEncoding: string | undefined
  ifNoneMatch: string | null
}

/** One static file's answer, honouring Accept-Encoding and If-None-Match. */
export function answerFile(request: FileRequest, file: StaticFile, status = 200): FileAnswer {
  const { body, encoding } = pickEncoding(file, request.acceptEncoding)
  const etag = etagFor(file, encoding)
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    'Cache-Control': file.cacheControl,
    ETag: etag,
    Vary: 'Accept-Encoding',
  }
  if (status === 200 && noneMatch(request.ifNoneMatch, etag)) return { status: 304, headers }
  if (encoding) headers['Content-Encoding'] = encoding
  headers['Content-Length'] = String(body.length)
  return { status, headers, body: request.method === 'HEAD' ? undefined : body }
}

/**
 * A response for one static file, honouring Accept-Encoding and If-None-Match, with `more`
 * headers over the file's own (the home page's).
 */
export function serveFile(
  request: Request,
  file: StaticFile,
  status = 200,
  more?: Record<string, string>,
): Response {
  const answer = answerFile(fileRequestOf(request), file, status)
  const headers = more ? { ...answer.headers, ...more } : answer.headers
  return new Response(answer.body ? new Uint8Array(answer.body) : null, { status: answer.status, headers })
}

function fileRequestOf(request: Request): FileRequest {
  const { headers } = request
  return {
    method: request.method,
    acceptEncoding: headers.get('accept-encoding') ?? undefined,
    ifNoneMatch: headers.get('if-none-match'),
  }
}
