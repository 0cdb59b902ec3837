import { readdir, readFile } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import { DIST_DIR } from '../../server/admin/runtime'

/** Where `npm run build` puts the studio's page (owner/studio-page/vite.config.ts). */
export const STUDIO_DIST_DIR = join(DIST_DIR, 'studio')

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

export interface StudioFile {
  body: Buffer
  contentType: string
}

/** The built page and its assets by URL path ('/' is index.html); small enough to hold in memory. */
export async function loadStudioFiles(directory = STUDIO_DIST_DIR): Promise<Map<string, StudioFile>> {
  const files = new Map<string, StudioFile>()
  const entries = await readdir(directory, { recursive: true, withFileTypes: true })
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    const type = CONTENT_TYPES[extname(path)]
    if (!type) continue
    const urlPath = `/${relative(directory, path).split(sep).join('/')}`
    files.set(urlPath === '/index.html' ? '/' : urlPath, { body: await readFile(path), contentType: type })
  }
  if (!files.has('/')) throw new Error(`${directory} has no index.html; run npm run build`)
  return files
}
