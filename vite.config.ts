import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'
import { compression } from 'vite-plugin-compression2'
import { vitePrerenderPlugin } from 'vite-prerender-plugin'
import { afterPaintLoaderPlugin } from './build/after-paint-loader-plugin.ts'
import { agentFilesPlugin } from './build/agent-files-plugin.ts'
import { buildStampPlugin } from './build/build-stamp-plugin.ts'
import { hydrationChunkPlugin } from './build/hydration-chunk-plugin.ts'
import { productionBuild } from './build/production-build-plugin.ts'
import { staticHostPlugin } from './build/static-host-plugin.ts'

const PRERENDER_SCRIPT = fileURLToPath(new URL('./src/prerender.tsx', import.meta.url))

/** A bundle entry plus the build-time .br/.gz copies vite-plugin-compression2 made of it. */
function deleteWithCompressed(bundle: Record<string, unknown>, fileName: string) {
  for (const suffix of ['', '.br', '.gz']) delete bundle[`${fileName}${suffix}`]
}

/**
 * The prerender entry and what only it imports (react-dom/server) are needed at build time, never by
 * a browser: drop every chunk the page's own entries cannot reach.
 */
function dropPrerenderChunks(): Plugin {
  return {
    name: 'lab:drop-prerender-chunks',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      // After the prerender plugin's own (listed before it, also 'post'), before the compression
      // plugin's, which runs in one of Vite's later hooks: react-dom/server is never compressed.
      handler(_options, bundle) {
        const chunks = Object.values(bundle).filter((output) => output.type === 'chunk')
        const reachable = new Set<string>()
        const visit = (fileName: string) => {
          const chunk = bundle[fileName]
          if (reachable.has(fileName) || chunk?.type !== 'chunk') return
          reachable.add(fileName)
          for (const next of [...chunk.imports, ...chunk.dynamicImports]) visit(next)
        }
        for (const chunk of chunks) {
          if (chunk.isEntry && chunk.facadeModuleId !== PRERENDER_SCRIPT) visit(chunk.fileName)
        }
        for (const chunk of chunks)
          if (!reachable.has(chunk.fileName)) deleteWithCompressed(bundle, chunk.fileName)
      },
    },
  }
}

/**
 * The page's one stylesheet is small (about 4 KB compressed), so it goes into the HTML as a <style>
 * and nothing blocks the first paint. No onload handler or script is involved, so a strict CSP
 * (script-src 'self') holds.
 */
function inlineStylesheets(): Plugin {
  return {
    name: 'lab:inline-stylesheets',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        const inlined = new Set<string>()
        for (const page of Object.values(bundle)) {
          if (page.type !== 'asset' || !page.fileName.endsWith('.html')) continue
          page.source = String(page.source).replace(
            /<link rel="stylesheet"[^>]*href="\/([^"]+\.css)"[^>]*>/g,
            (tag, fileName: string) => {
              const css = bundle[fileName]
              if (css?.type !== 'asset') return tag
              inlined.add(fileName)
              return `<style>${String(css.source).trim()}</style>`
            },
          )
        }
        // Lazy chunks never load CSS of their own here (Tailwind emits one sheet), so the file can go.
        const stillUsed = (fileName: string) =>
          Object.values(bundle).some((output) => output.type === 'chunk' && output.code.includes(fileName))
        for (const fileName of inlined) if (!stillUsed(fileName)) deleteWithCompressed(bundle, fileName)
      },
    },
  }
}

/** `npm run build:cdn`: the site for a static host in front of hosted Supabase (static-host-plugin.ts). */
const STATIC_HOST_MODE = 'cdn'

export default defineConfig(({ mode }) => ({
  plugins: [
    productionBuild(),
    react(),
    hydrationChunkPlugin(),
    tailwindcss(),
    vitePrerenderPlugin({
      renderTarget: '#root',
      prerenderScript: PRERENDER_SCRIPT,
      additionalPrerenderRoutes: ['/404'],
    }),
    // llms.txt, the ai-catalog, robots.txt, sitemap.xml and the web manifest, from contract/site-config.ts.
    agentFilesPlugin(mode === STATIC_HOST_MODE ? 'static' : 'server'),
    // Brotli and gzip at build time; server/http/static-site.ts serves dist/*.br and *.gz as they are.
    // HTML is left out: the server writes the anon key into it at start-up and compresses it then.
    // A static host compresses what it serves itself, and would not serve these files.
    mode !== STATIC_HOST_MODE &&
      compression({
        algorithms: ['brotliCompress', 'gzip'],
        exclude: [/\.html$/],
        threshold: 257,
        logLevel: 'silent',
        // Brotli at quality 11 is the slow part of the build, on the first `npm start` too. The plugin
        // runs one such job at a time (cores - 1, and at least one, here); two at once use both cores.
        scheduler: { limit: 2, isHighMemory: () => true },
      }),
    inlineStylesheets(),
    // The entry (src/main.tsx) is fetched after the first paint, so the HTML alone paints first.
    afterPaintLoaderPlugin(),
    dropPrerenderChunks(),
    mode === STATIC_HOST_MODE && staticHostPlugin(),
    // Not for a static host's build: `npm start` must rebuild that one for the server.
    mode !== STATIC_HOST_MODE && buildStampPlugin(),
  ],
  build: {
    // Keep the build small and modern: every visitor's browser supports ES2022 modules.
    target: 'es2022',
  },
}))
