import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { runCliProcess } from '../../harness/waitlist-cli'

/**
 * The CLI loads each command's modules when that command runs (owner/cli/commands.ts): the suites
 * start it hundreds of times, and most of a run was Node reading code it never used. Counted from
 * outside, with Node's own module hooks: every file of the bundle a run evaluates, and the packages
 * esbuild inlined into them (it marks each with a `// node_modules/NAME/…` line).
 */

const HOOKS = `import { appendFileSync } from 'node:fs'
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.CLI_START_LOG, url + '\\n')
  return next(url, context)
}
`

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-start-'))
  await writeFile(join(dir, 'hooks.mjs'), HOOKS)
  const hooks = pathToFileURL(join(dir, 'hooks.mjs')).href
  await writeFile(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module'\nregister(${JSON.stringify(hooks)})\n`,
  )
})
afterAll(async () => {
  await stopBackends()
  await rm(dir, { recursive: true, force: true })
})

/** The CLI's run with these arguments: its exit code, and the packages inlined in the files it loaded. */
async function loaded(env: Record<string, string>, ...args: string[]) {
  const log = join(dir, `${args.join('-')}.log`)
  const register = pathToFileURL(join(dir, 'register.mjs')).href
  const result = await runCliProcess(
    { ...env, NODE_OPTIONS: `--import ${register}`, CLI_START_LOG: log },
    ...args,
  )
  const files = (await readFile(log, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith('file:') && !url.includes(dir))
    .map((url) => fileURLToPath(url))
  const packages = new Set<string>()
  for (const file of files)
    for (const [, name] of (await readFile(file, 'utf8')).matchAll(
      /^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm,
    ))
      packages.add(name as string)
  return { result, files, packages: [...packages] }
}

describe('the CLI loads what its command needs', () => {
  it('--help reads neither the database driver nor the env schema', async () => {
    const { result, files, packages } = await loaded({ DATA_DIR: join(dir, 'data') }, '--help')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Usage: npm run waitlist -- <command> [options]')
    // The run's bundle, not the sources through tsx: what the count is about.
    expect(files.some((file) => file.endsWith('waitlist-cli.mjs'))).toBe(true)
    expect(packages).toEqual([])
  })

  it('count reads the driver and the env schema, not the studio, mail, passkeys or the domain lists', async () => {
    const url = await sharedPostgresUrl()
    const { result, packages } = await loaded({ DATABASE_URL: url }, 'count')
    expect(result).toMatchObject({ code: 0, stdout: '0\n' })
    expect(packages).toEqual(expect.arrayContaining(['pg', 'zod']))
    for (const heavy of [
      '@hono/node-server',
      'hono',
      'nodemailer',
      '@simplewebauthn/server',
      'jose',
      'disposable-email-domains-js',
    ])
      expect(packages).not.toContain(heavy)
  })
})
