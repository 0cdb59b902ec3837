import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

/**
 * The waitlist studio's page (`npm run waitlist -- studio`), a build of its own: none of the public
 * site's plugins touch it, and nothing of it reaches the public page. Output: dist/studio/, which
 * the studio server reads and the site's server does not serve.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), tailwindcss()],
  // React's production build, even when a test runner (NODE_ENV=test) asks for the build.
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: fileURLToPath(new URL('../dist/studio/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline polyfill: the studio's CSP runs only its own files.
    modulePreload: { polyfill: false },
  },
})
