import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { buildStampPlugin } from '../../build/build-stamp-plugin.ts'
import { productionBuild } from '../../build/production-build-plugin.ts'

/**
 * The waitlist studio's page (`npm run waitlist -- studio`), a build of its own: none of the public
 * site's plugins touch it, and nothing of it reaches the public page. Output: dist/studio/, which
 * the studio server reads. Its own dist/studio/.build-stamp
 * tells `waitlist studio` it is built (server/boot/build-if-stale.ts). The site's server serves it
 * under /studio only once the lab has a team (owner/team-studio/): never on the public page.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Its files are named relative to the page: the local studio serves it at /, the site at /studio/.
  base: './',
  plugins: [productionBuild(), react(), tailwindcss(), buildStampPlugin()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/studio/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline polyfill: the studio's CSP runs only its own files.
    modulePreload: { polyfill: false },
    rollupOptions: {
      // The page takes a few constants from the server's modules (the statuses); never the work
      // those modules do as they load for the server (server/base/log.ts draws a key with
      // node:crypto, which a browser has not: the page stopped before its first render).
      treeshake: { moduleSideEffects: (id) => !id.includes('/server/') },
    },
  },
})
