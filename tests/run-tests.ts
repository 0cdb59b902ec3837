import { spawn } from 'node:child_process'
import { prepareTemplate } from '../harness/data-dir'
import { bundleForTests } from '../harness/test-bundle'
import { buildIfStale } from '../server/boot/build-if-stale'

/**
 * `npm test`. The Node suites keep both cores busy, while the browser suite mostly waits on
 * Chromium and its servers (about a third of two cores): run side by side, they take not much
 * longer than the browser suite alone. What both global setups would otherwise both do (build the
 * site, bundle the server and CLI, migrate the database template) is done once first, so the two
 * never build `dist/` at once. The container suite runs last, alone: it builds an image.
 */
interface Suite {
  name: string
  args: string[]
  /** Printed as it comes; the others' output is held and printed whole when they end. */
  live?: boolean
}

const SIDE_BY_SIDE: Suite[] = [
  {
    name: 'test:node',
    args: ['vitest', 'run', '--project', 'unit', '--project', 'server', '--project', 'reliability'],
    live: true,
  },
  { name: 'test:e2e', args: ['playwright', 'test'] },
]
const AFTER: Suite = { name: 'test:container', args: ['vitest', 'run', '--project', 'container'] }

interface Outcome {
  name: string
  passed: boolean
  seconds: number
}

/** The environment as given: building the site in this process sets NODE_ENV=production. */
const GIVEN_ENV = { ...process.env }
const running = new Set<ReturnType<typeof spawn>>()

function run(suite: Suite, held: string[]): Promise<Outcome> {
  const started = Date.now()
  const child = spawn('npx', suite.args, {
    env: GIVEN_ENV,
    stdio: ['ignore', suite.live ? 'inherit' : 'pipe', suite.live ? 'inherit' : 'pipe'],
  })
  running.add(child)
  const keep = (chunk: Buffer) => held.push(chunk.toString())
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  return new Promise((resolve) => {
    child.on('close', (code) => {
      running.delete(child)
      resolve({ name: suite.name, passed: code === 0, seconds: Math.round((Date.now() - started) / 1000) })
    })
  })
}

async function main(): Promise<number> {
  const started = Date.now()
  await buildIfStale((message) => console.log(message))
  await bundleForTests()
  await prepareTemplate()
  const held = SIDE_BY_SIDE.map((): string[] => [])
  const outcomes = await Promise.all(SIDE_BY_SIDE.map((suite, index) => run(suite, held[index] ?? [])))
  for (const [index, suite] of SIDE_BY_SIDE.entries()) {
    if (suite.live) continue
    console.log(`\n── ${suite.name} ──\n${(held[index] ?? []).join('')}`)
  }
  // As `npm run test:node && …` did: the image is built only when the rest passed.
  if (outcomes.every((outcome) => outcome.passed)) outcomes.push(await run({ ...AFTER, live: true }, []))
  const total = Math.round((Date.now() - started) / 1000)
  const summary = outcomes.map((o) => `${o.name} ${o.passed ? 'passed' : 'FAILED'} in ${o.seconds} s`)
  console.log(`\n${summary.join('; ')}. npm test: ${total} s.`)
  return outcomes.every((outcome) => outcome.passed) && outcomes.length === SIDE_BY_SIDE.length + 1 ? 0 : 1
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // The suites stop their servers on the signal; main() then reports them as failed.
    for (const child of running) child.kill(signal)
  })
}

process.exitCode = await main()
