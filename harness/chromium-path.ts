import { existsSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/** CHROME_PATH, then a browser Playwright downloaded itself, then Debian's chromium. */
export function findChromium(): string {
  const fromEnv = process.env.CHROME_PATH
  if (fromEnv && existsSync(fromEnv)) return fromEnv
  const cache = process.env.PLAYWRIGHT_BROWSERS_PATH ?? join(homedir(), '.cache', 'ms-playwright')
  if (existsSync(cache)) {
    const builds = readdirSync(cache)
      .filter((name) => name.startsWith('chromium-'))
      .sort()
      .reverse()
    for (const build of builds) {
      for (const binary of ['chrome-linux/chrome', 'chrome-linux64/chrome']) {
        const path = join(cache, build, binary)
        if (existsSync(path)) return path
      }
    }
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium'
  throw new Error(
    'No Chromium found: set CHROME_PATH, or install Debian chromium (apt-get install -y chromium)',
  )
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]
