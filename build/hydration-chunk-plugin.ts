import type { Plugin } from 'vite'

// React's client packages, and the site's own modules apart from the entry, the lazy ones (the
// Supabase client, the toaster, the WebMCP tool offered only where a browser has WebMCP) and the
// build-time ones: prerendering, the agent files, and the static page the prerender draws (app,
// pages/, sections/), which the browser never hydrates. Without that last exclusion the group
// would pull them into the page's chunk. Rolldown places its own runtime helpers itself (a small
// shared chunk); the after-paint loader preloads that too.
const REACT_CLIENT =
  /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/](?!cjs[\\/]react-dom-server|server)/
const SITE_MODULE =
  /[\\/]src[\\/](?!main\.|prerender\.|app\.|pages[\\/]|sections[\\/]|discovery[\\/]|lib[\\/]supabase-client\.|lib[\\/]webmcp-(register|answers)\.|components[\\/]toaster\.).*\.tsx?$/

export function isHydrationModule(id: string): boolean {
  return REACT_CLIENT.test(id) || (SITE_MODULE.test(id) && !id.includes('node_modules'))
}

/**
 * Everything hydration needs in one chunk: React, its scheduler and the page's components. The
 * entry (src/main.tsx) imports only it, and the after-paint loader fetches both at once, so there
 * is no waterfall of small shared chunks. The lazy Supabase client and toaster import React from it,
 * and so does the build-time prerender (hence no side effects in src/hydrate.tsx).
 */
export function hydrationChunkPlugin(): Plugin {
  return {
    name: 'lab:hydration-chunk',
    apply: 'build',
    enforce: 'post',
    config: () => ({
      build: {
        // Nothing for Vite's preload helper to add: the loader preloads the one chunk the entry imports.
        modulePreload: false,
        rolldownOptions: {
          output: { codeSplitting: { groups: [{ name: 'hydrate', test: isHydrationModule }] } },
        },
      },
    }),
    outputOptions(options) {
      // vite-prerender-plugin sets manualChunks for `<script prerender>` and the preload polyfill,
      // neither used here; Rolldown would ignore it beside codeSplitting, with a warning each build.
      const { manualChunks: _unused, ...rest } = options
      return rest
    },
  }
}
