import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConformanceTester } from '../support/ard/ard.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SITE = 'https://lab.example.com'
const SUPABASE = 'https://abcdefgh.supabase.co'
const ANON = 'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.static-host-test'

/** `npm run build:cdn` into `outDir`, with the settings docs/deploy.md gives it. */
function buildForCdn(outDir: string, env: Record<string, string>) {
  const vite = join(ROOT, 'node_modules', '.bin', 'vite')
  return run(vite, ['build', '--mode', 'cdn', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...{ SITE_URL: '', VITE_SUPABASE_URL: '', VITE_SUPABASE_ANON_KEY: '', WEBMCP_ORIGIN_TRIAL_TOKEN: '' },
      ...env,
    },
  })
}

async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true })
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
    ),
  )
  return nested.flat()
}

// The CDN path of docs/deploy.md: the static dist/ alone must be right, with no server to fill it in.
describe('npm run build:cdn', () => {
  let scratch: string
  let dist: string
  let files: string[]
  const text = (file: string) => readFile(join(dist, file), 'utf8')
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'lab-site-cdn-'))
    dist = join(scratch, 'dist')
    // A trailing slash, as people write it: no '//' may follow.
    await buildForCdn(dist, {
      SITE_URL: `${SITE}/`,
      VITE_SUPABASE_URL: SUPABASE,
      VITE_SUPABASE_ANON_KEY: ANON,
    })
    files = await filesUnder(dist)
  }, 120_000)
  afterAll(() => rm(scratch, { recursive: true, force: true }))

  it('fills SITE_URL and the anon key into every file: no placeholder is left', async () => {
    for (const file of files.filter((name) => !/\.(png|ico)$/.test(name))) {
      const body = await text(file)
      expect(body, file).not.toMatch(/__SITE_URL__|__SUPABASE_ANON_KEY__/)
      expect(body, file).not.toContain(`${SITE}//`)
    }
    expect(await text('index.html')).toContain(`<link rel="canonical" href="${SITE}/"`)
    expect(await text('index.html')).toContain(`content="${ANON}"`)
    expect(await text('sitemap.xml')).toContain(`<loc>${SITE}/</loc>`)
    expect(await text('robots.txt')).toContain(`Sitemap: ${SITE}/sitemap.xml`)
    // The page calls the hosted project itself.
    const scripts = await Promise.all(files.filter((name) => name.endsWith('.js')).map(text))
    expect(scripts.join('\n')).toContain(SUPABASE)
  })

  it('advertises to agents only what a static host serves: no /mcp, no no-script POST', async () => {
    for (const file of ['llms.txt', 'llms-full.txt', '.well-known/ai-catalog.json']) {
      const body = await text(file)
      expect(body, file).not.toMatch(/\/mcp\b(?!-)/)
      expect(body, file).not.toContain('POST ')
      expect(body, file).toContain('request_beta_access')
      // The answers go through /mcp: a static host's tool takes the address alone.
      expect(body, file).not.toContain('`use_case`')
    }
    const catalog = await text('.well-known/ai-catalog.json')
    const tester = new ConformanceTester()
    expect(tester.validate_manifest(catalog, 'ai-catalog.json')).toBe(true)
    expect(tester.errors).toEqual([])
    const entries = (JSON.parse(catalog) as { entries: { identifier: string }[] }).entries
    expect(entries.map((entry) => entry.identifier)).toEqual([expect.stringMatching(/:docs:llms-txt$/)])
    // Nor /mcp's server card.
    expect(files.filter((name) => name.startsWith('mcp'))).toEqual([])
  })

  it('writes the 404 page as 404.html, no studio, and no precompressed copies a CDN would not serve', () => {
    expect(files).toContain('404.html')
    expect(files).toContain('index.html')
    expect(files.filter((name) => /^(404|studio)\//.test(name) || /\.(br|gz)$/.test(name))).toEqual([])
  })

  it('puts no origin-trial token into the page while WEBMCP_ORIGIN_TRIAL_TOKEN is unset', async () => {
    expect(await text('index.html')).not.toContain('origin-trial')
  })

  it('serves the page in Markdown at the address its <link rel="alternate"> names', async () => {
    expect(await text('index.html')).toContain('<link rel="alternate" type="text/markdown" href="/index.md">')
    const markdown = await text('index.md')
    expect(markdown).toBe(await text('llms-full.txt'))
    expect(markdown).not.toMatch(/\/mcp\b(?!-)/)
  })

  it('puts WEBMCP_ORIGIN_TRIAL_TOKEN into the page as <meta http-equiv="origin-trial">, the page alone', async () => {
    const token = 'A1b2C3d4E5f6G7h8I9j0K+lM/nO0pQ=='
    const withToken = join(scratch, 'with-token')
    await buildForCdn(withToken, {
      SITE_URL: SITE,
      VITE_SUPABASE_URL: SUPABASE,
      VITE_SUPABASE_ANON_KEY: ANON,
      WEBMCP_ORIGIN_TRIAL_TOKEN: token,
    })
    const home = await readFile(join(withToken, 'index.html'), 'utf8')
    const head = home.slice(0, home.indexOf('<script'))
    expect(head).toContain(`<meta http-equiv="origin-trial" content="${token}">`)
    expect(await readFile(join(withToken, '404.html'), 'utf8')).not.toContain('origin-trial')
  }, 120_000)

  it('refuses a token that is not one, before building', async () => {
    const failed = buildForCdn(join(scratch, 'bad-token'), {
      SITE_URL: SITE,
      VITE_SUPABASE_URL: SUPABASE,
      VITE_SUPABASE_ANON_KEY: ANON,
      WEBMCP_ORIGIN_TRIAL_TOKEN: 'abc"><script>x</script>',
    })
    await expect(failed).rejects.toMatchObject({
      stderr: expect.stringContaining('WEBMCP_ORIGIN_TRIAL_TOKEN must be the token'),
    })
  })

  it('refuses to build without the settings nothing would fill in later', async () => {
    const failed = buildForCdn(join(scratch, 'incomplete'), { VITE_SUPABASE_URL: SUPABASE })
    const error = (await failed.catch((caught: unknown) => caught)) as { code?: number; stderr?: string }
    expect(error.code).toBe(1)
    // The one line, not Vite's "error during build:" with a stack trace.
    expect(error.stderr?.trim()).toBe(
      'npm run build:cdn needs SITE_URL, VITE_SUPABASE_ANON_KEY: the address the site is served at and the ' +
        'hosted Supabase project it calls (docs/deploy.md, "The static site on a CDN").',
    )
  })
})
