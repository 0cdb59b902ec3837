import { minifySync, type Plugin, type Rolldown } from 'vite'

/**
 * Runs in the page, serialised with toString(). Fetches the app's entry module, and preloads the
 * chunks it imports beside it, once the first content is on screen: until then the prerendered
 * HTML is all the page needs, so no script competes with it.
 */
function loadAfterFirstPaint() {
  const script = document.currentScript
  let started = false
  const start = () => {
    if (started || !script) return
    started = true
    for (const href of (script.dataset.preload ?? '').split(' ').filter(Boolean)) {
      const link = document.createElement('link')
      link.rel = 'modulepreload'
      link.href = href
      document.head.append(link)
    }
    const entry = document.createElement('script')
    entry.type = 'module'
    entry.src = script.dataset.entry ?? ''
    document.head.append(entry)
  }
  const soon = () => setTimeout(start, 0)
  // Whatever the browser reports, or fails to, the app starts within a few seconds.
  setTimeout(start, 3000)
  if (document.visibilityState === 'hidden') {
    // A background tab paints nothing until it is shown: nothing to wait for.
    soon()
  } else if (
    typeof PerformanceObserver === 'function' &&
    PerformanceObserver.supportedEntryTypes?.includes('paint')
  ) {
    // The paint-timing entry arrives once the first paint has reached the screen, which can be
    // tens of milliseconds after the frame that produced it.
    new PerformanceObserver((entries, observer) => {
      if (entries.getEntriesByName('first-contentful-paint').length === 0) return
      observer.disconnect()
      soon()
    }).observe({ type: 'paint', buffered: true })
  } else {
    // No paint timing: a timer set from an animation frame runs after that frame is painted.
    requestAnimationFrame(soon)
  }
}

/** Every chunk `chunk` imports statically, directly or through another: what its evaluation waits for. */
function staticImports(
  bundle: Rolldown.OutputBundle,
  chunk: Rolldown.OutputChunk,
  found = new Set<string>(),
): Set<string> {
  for (const fileName of chunk.imports) {
    const imported = bundle[fileName]
    if (found.has(fileName) || imported?.type !== 'chunk') continue
    found.add(fileName)
    staticImports(bundle, imported, found)
  }
  return found
}

/** The loader's text: the same in every build, so its CSP hash only changes when this code does. */
export const AFTER_PAINT_LOADER = minifySync(
  'after-paint-loader.js',
  `(${loadAfterFirstPaint.toString()})()`,
).code.trim()

/**
 * Replaces the page's `<script type="module" src>` with an inline loader that fetches that entry,
 * and preloads every chunk it imports, after the first paint (the URLs travel in data- attributes).
 *
 * Why: any script the page fetches before its first paint sits on the path to that paint (a round
 * trip more on a slow link, and Lighthouse's simulation counts it in LCP). With the loader, the
 * document alone paints, exactly like its static-HTML rendering. The server allows the loader by
 * its SHA-256 in the Content-Security-Policy (server/http/inline-scripts.ts), so no 'unsafe-inline'.
 */
export function afterPaintLoaderPlugin(): Plugin {
  return {
    name: 'lab:after-paint-loader',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const page of Object.values(bundle)) {
          if (page.type !== 'asset' || !page.fileName.endsWith('.html')) continue
          page.source = String(page.source).replace(
            /<script type="module"[^>]*\ssrc="\/([^"]+\.js)"[^>]*><\/script>/g,
            (_tag, fileName: string) => {
              const chunk = bundle[fileName]
              if (chunk?.type !== 'chunk')
                this.error(`after-paint-loader: ${fileName} is not a chunk of this build`)
              const preload = [...staticImports(bundle, chunk)].map((imported) => `/${imported}`).join(' ')
              return `<script data-entry="/${fileName}" data-preload="${preload}">${AFTER_PAINT_LOADER}</script>`
            },
          )
        }
      },
    },
  }
}
