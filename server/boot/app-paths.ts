import type { Hono } from 'hono'
import { TrieRouter } from 'hono/router/trie-router'

/**
 * Whether the app has a route of its own for a request, read from the app's routes rather than a
 * list kept beside them: under `npm run dev` these go to the app and the rest to Vite. The app-wide
 * middleware and the built site's catch-all are registered on `/*`, which is every path, so left out.
 */
export function appPaths(app: Hono): (method: string, path: string) => boolean {
  const router = new TrieRouter<true>()
  for (const route of app.routes) if (route.path !== '/*') router.add(route.method, route.path, true)
  // Hono answers HEAD with its GET route.
  return (method, path) => router.match(method === 'HEAD' ? 'GET' : method, path)[0].length > 0
}
