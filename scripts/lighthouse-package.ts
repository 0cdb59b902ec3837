import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../server/base/paths'

/**
 * Lighthouse is not a dependency: version 13 wants Node 22.19 or newer (npm install would print
 * EBADENGINE on the Node 20 the README allows) and brings some 150 MB of packages that only these
 * scripts use. The scripts that run it install it here on first use, outside package.json, and it
 * runs on Node 20 all the same. The tests' catalog validator is Lighthouse's own, kept in
 * tests/support/ard/ from this same version.
 */
export const LIGHTHOUSE_VERSION = '13.5.0'
const HOME = join(ROOT, 'node_modules', '.cache', 'lab-site-lighthouse')

/** What these scripts read of a Lighthouse report (its LHR). */
export interface LighthouseAudit {
  title?: string
  score: number | null
  scoreDisplayMode?: string
  numericValue?: number
  errorMessage?: string
  explanation?: string
  details?: unknown
}
export interface LighthouseResult {
  lhr: {
    categories: Record<
      string,
      { title: string; score: number | null; auditRefs: { id: string; weight: number }[] }
    >
    audits: Record<string, LighthouseAudit>
    runtimeError?: { message: string }
  }
}
export type Lighthouse = (
  url: string,
  flags: { port: number; output: 'json'; logLevel: 'error'; onlyCategories: string[] },
) => Promise<LighthouseResult | undefined>

function installedVersion(): string | undefined {
  const manifest = join(HOME, 'node_modules', 'lighthouse', 'package.json')
  if (!existsSync(manifest)) return undefined
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version
}

/** Lighthouse, installed into node_modules/.cache on first use (about a minute, once). */
export async function loadLighthouse(): Promise<Lighthouse> {
  if (installedVersion() !== LIGHTHOUSE_VERSION) {
    console.log(`Installing Lighthouse ${LIGHTHOUSE_VERSION} for this script, once, into ${HOME}...`)
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        HOME,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `lighthouse@${LIGHTHOUSE_VERSION}`,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    )
  }
  const entry = createRequire(join(HOME, 'index.js')).resolve('lighthouse')
  const module = (await import(pathToFileURL(entry).href)) as { default: Lighthouse }
  return module.default
}
