import { readdir, readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, sep } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { securityHeaderValues } from '../server/http/middleware/security-headers'
import { ANON_KEY_PLACEHOLDER, pickEncoding } from '../server/http/static-site'

/**
 * The page as plain static HTML: the prerendered markup with every script and module preload
 * removed. The build already inlines the stylesheet, so the CSS stays as it is. This is the
 * limit the React page is measured against.
 */
export function staticHtmlOf(prerendered: string): string {
  return prerendered
    .replaceAll(ANON_KEY_PLACEHOLDER, '')
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
    .replace(/<link rel="modulepreload"[^>]*>/g, '')
}

const TYPES: Record<string, string> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
}

export interface StaticCopyServer {
  url: string
  html: string
  close(): Promise<void>
}

/** Every file of dist by its URL path, read once: the site's server answers them from memory too. */
async function filesOf(distDir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>()
  for (const entry of await readdir(distDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    files.set(`/${path.slice(distDir.length).split(sep).filter(Boolean).join('/')}`, await readFile(path))
  }
  return files
}

/**
 * A tiny keep-alive server for the static rendering: '/' is the page, other paths come from dist,
 * held in memory. Read from disk at each request, the favicon and the manifest (which Chrome fetches
 * at the load event) came later than the site's, and Lighthouse's simulated LCP, which counts every
 * request that ended before the first frame, fell from about 905 to 755 ms for the copy alone.
 * Every answer carries the site's own security headers, so the two pages differ only by their
 * scripts: Cross-Origin-Opener-Policy alone changes how Chrome loads a page (a new browsing context
 * group, so a fresh renderer process, when navigating from about:blank as Lighthouse does).
 */
export async function serveStaticCopy(distDir: string): Promise<StaticCopyServer> {
  const html = staticHtmlOf(await readFile(join(distDir, 'index.html'), 'utf8'))
  const page = {
    body: Buffer.from(html),
    brotli: brotliCompressSync(html),
    gzip: gzipSync(html, { level: 9 }),
  }
  const files = await filesOf(distDir)
  const security = securityHeaderValues()
  const server: Server = createServer((request, response) => {
    for (const [name, value] of Object.entries(security)) response.setHeader(name, value)
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    if (path === '/') {
      const { body, encoding } = pickEncoding(
        { ...page, contentType: '', etag: '', cacheControl: '' },
        request.headers['accept-encoding'],
      )
      response.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-cache',
        ...(encoding ? { 'Content-Encoding': encoding } : {}),
      })
      response.end(body)
      return
    }
    const file = files.get(path)
    if (!file) {
      response.writeHead(404).end()
      return
    }
    const extension = path.slice(path.lastIndexOf('.'))
    response.writeHead(200, { 'Content-Type': TYPES[extension] ?? 'application/octet-stream' }).end(file)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    html,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
