import { createServer } from 'vite'
import { CONFIRM_SIGNUPS_PLACEHOLDER } from '../../contract/site-url'
import { ROOT } from '../base/paths'
import { ANON_KEY_PLACEHOLDER } from '../http/static-site'
import { runServer } from './run-server'

/**
 * `npm run dev`: the server `npm start` runs, with Vite in middleware mode serving the pages from
 * the sources with hot reload in place of the built site. Every path the app has a route for stays
 * the app's (server/boot/app-paths.ts). What differs is in docs/operations.md.
 */
runServer(() => ({
  async pages(server, { anonKey, confirmSignups }) {
    const vite = await createServer({
      root: ROOT,
      server: { middlewareMode: true, hmr: { server } },
      plugins: [
        {
          name: 'inject-anon-key',
          transformIndexHtml: (html) =>
            html
              .replaceAll(ANON_KEY_PLACEHOLDER, anonKey)
              .replaceAll(CONFIRM_SIGNUPS_PLACEHOLDER, confirmSignups ? 'on' : 'off'),
        },
      ],
    })
    return { handle: (request, response) => vite.middlewares(request, response), close: () => vite.close() }
  },
}))
