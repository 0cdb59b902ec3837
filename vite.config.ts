import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { vitePrerenderPlugin } from 'vite-prerender-plugin'
import { agentFilesPlugin } from './build/agent-files-plugin'

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    vitePrerenderPlugin({
      renderTarget: '#root',
      prerenderScript: fileURLToPath(new URL('./src/prerender.tsx', import.meta.url)),
      additionalPrerenderRoutes: ['/404'],
    }),
    // llms.txt, the ai-catalog, robots.txt, sitemap.xml and the web manifest, from src/site-config.ts.
    agentFilesPlugin(),
  ],
  build: {
    // Keep the build small and modern: every visitor's browser supports ES2022 modules.
    target: 'es2022',
  },
})
