import type { Plugin } from 'vite'

/**
 * A build started from a test runner inherits NODE_ENV=test, and Vite then bundles React's
 * development build (about 50 KB more compressed). A build is always for production.
 */
export function productionBuild(): Plugin {
  let previous: string | undefined
  return {
    name: 'lab:production-build',
    apply: 'build',
    config() {
      previous = process.env.NODE_ENV
      process.env.NODE_ENV = 'production'
    },
    // The process that asked for the build (a test worker) gets its own value back.
    closeBundle() {
      if (previous === undefined) delete process.env.NODE_ENV
      else process.env.NODE_ENV = previous
    },
  }
}
