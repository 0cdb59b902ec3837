import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { executableInlineScripts } from '../server/http/inline-scripts'

/**
 * The files a browser fetches for '/' with no interaction, read from the build itself: the entry
 * and the chunks the after-paint loader names (`data-entry`, `data-preload`), any module script,
 * module preload or stylesheet in the HTML, and every chunk those import statically. Dynamic
 * imports (the Supabase client, the toaster) wait for the visitor and are not part of the first load.
 */
export interface FirstLoadSet {
  js: string[]
  css: string[]
  /** Scripts and preloads the HTML itself names, fetched before its first paint (none, by design). */
  fetchedBeforePaint: string[]
  /** The inline scripts that run (the after-paint loader), JSON-LD and other data blocks aside. */
  inlineScripts: string[]
  /** The text of every <style> in the HTML (the build inlines the stylesheet). */
  inlineCss: string
  html: string
}

const STATIC_IMPORT = /(?:\bfrom\s*|\bimport\s*)["'`]\.\/([\w.-]+\.js)["'`]/g

export async function readFirstLoadSet(distDir: string): Promise<FirstLoadSet> {
  const html = await readFile(join(distDir, 'index.html'), 'utf8')
  const attribute = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]+)"`).exec(tag)?.[1]
  const tags = html.match(/<(?:script|link)\b[^>]*>/g) ?? []
  const entries = tags
    .filter((tag) => tag.startsWith('<script') && /type="module"/.test(tag))
    .map((tag) => attribute(tag, 'src'))
  const preloads = tags.filter((tag) => /rel="modulepreload"/.test(tag)).map((tag) => attribute(tag, 'href'))
  const css = tags.filter((tag) => /rel="stylesheet"/.test(tag)).map((tag) => attribute(tag, 'href'))
  const fetchedBeforePaint = [...entries, ...preloads, ...css].filter((url): url is string => Boolean(url))
  // The after-paint loader names the entry and the chunks it preloads beside it.
  for (const tag of tags.filter((tagText) => /\bdata-entry=/.test(tagText))) {
    entries.push(attribute(tag, 'data-entry'))
    preloads.push(...(attribute(tag, 'data-preload') ?? '').split(' '))
  }
  const local = (paths: (string | undefined)[]) =>
    paths.filter((path): path is string => Boolean(path?.startsWith('/assets/'))).map((path) => path.slice(1))

  const js = new Set<string>()
  const visit = async (file: string) => {
    if (js.has(file)) return
    js.add(file)
    const code = await readFile(join(distDir, file), 'utf8')
    for (const [, name] of code.matchAll(STATIC_IMPORT)) if (name) await visit(`assets/${name}`)
  }
  for (const file of local([...entries, ...preloads])) await visit(file)

  const inlineScripts = executableInlineScripts(html)
  const inlineCss = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)]
    .map((match) => match[1])
    .join('\n')
  return { js: [...js], css: local(css), fetchedBeforePaint, inlineScripts, inlineCss, html }
}

export function compressedSizes(body: string | Buffer): { brotli: number; gzip: number } {
  const buffer = typeof body === 'string' ? Buffer.from(body) : body
  return {
    brotli: brotliCompressSync(buffer, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    gzip: gzipSync(buffer, { level: 9 }).length,
  }
}

/** Compressed bytes of a list of dist files, summed per encoding. */
export async function totalCompressed(
  distDir: string,
  files: string[],
): Promise<{ brotli: number; gzip: number }> {
  let brotli = 0
  let gzip = 0
  for (const file of files) {
    const sizes = compressedSizes(await readFile(join(distDir, file)))
    brotli += sizes.brotli
    gzip += sizes.gzip
  }
  return { brotli, gzip }
}
