import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const MAX_LINES = 60

// Product code, before and after the re-zone (owner/ and contract/ replace scripts/cli, scripts/studio
// and studio/). Tests, the bench and build scripts are exempt.
const PRODUCT = [
  'server',
  'src',
  'studio',
  'owner',
  'contract',
  'scripts/waitlist-cli.ts',
  'scripts/cli',
  'scripts/studio',
  'scripts/csv.ts',
]

function sourceFiles(path: string): string[] {
  if (!existsSync(path)) return []
  if (statSync(path).isFile()) return /\.tsx?$/.test(path) && !/\.(test|spec)\.tsx?$/.test(path) ? [path] : []
  return readdirSync(path)
    .filter((name) => name !== 'node_modules')
    .flatMap((name) => sourceFiles(join(path, name)))
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText()
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText()
  if (ts.isCallExpression(parent)) return `callback of ${parent.expression.getText().slice(0, 40)}`
  return '(anonymous)'
}

interface LongFunction {
  where: string
  name: string
  lines: number
}

/** Every function-like node (declarations, methods, arrows, function expressions) and its length in lines. */
function longFunctions(file: string, max: number): LongFunction[] {
  const text = readFileSync(file, 'utf8')
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const found: LongFunction[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line
      const lines = last - first + 1
      if (lines > max)
        found.push({ where: `${relative(ROOT, file)}:${first + 1}`, name: functionName(fn), lines })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('function length', () => {
  const files = PRODUCT.flatMap((path) => sourceFiles(join(ROOT, path)))

  it('finds the product code', () => {
    expect(files.length).toBeGreaterThan(50)
  })

  it(`has no function over ${MAX_LINES} lines in product code`, () => {
    const long = files.flatMap((file) => longFunctions(file, MAX_LINES))
    const report = long.map((f) => `${f.where} ${f.name} (${f.lines} lines)`)
    expect(report).toEqual([])
  })

  it("counts arrow callbacks too: this file's describe callback is over 5 lines", () => {
    const found = longFunctions(join(ROOT, 'tests', 'server', 'function-length.test.ts'), 5)
    expect(found.map((f) => f.name)).toContain('callback of describe')
  })
})
