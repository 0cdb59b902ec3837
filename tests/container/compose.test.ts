import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../server/base/paths'

const exec = promisify(execFile)

/** A compose that can render the file without an engine: `docker compose`, else Debian's docker-compose. */
function composeCommand(): string[] | undefined {
  for (const command of [['docker', 'compose'], ['docker-compose']]) {
    try {
      execFileSync(command[0] as string, [...command.slice(1), 'version'], { stdio: 'ignore' })
      return command
    } catch {}
  }
  return undefined
}
const compose = composeCommand()
if (!compose) console.warn('Skipping the compose.yaml tests: no docker compose or docker-compose here.')

async function renderCompose(env: Record<string, string>) {
  const [command, ...args] = compose as string[]
  const environment = { PATH: process.env.PATH ?? '', ...env }
  try {
    const { stdout } = await exec(command as string, [...args, '-f', 'compose.yaml', 'config'], {
      cwd: ROOT,
      env: environment,
    })
    return { code: 0, output: stdout }
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string }
    return { code: code ?? -1, output: `${stdout ?? ''}${stderr ?? ''}` }
  }
}

/** The lines of one top-level service in the rendered YAML (its block, two spaces in). */
function serviceBlock(yaml: string, name: string): string {
  const start = yaml.indexOf(`\n  ${name}:\n`)
  expect(start, `service ${name}`).toBeGreaterThan(-1)
  const rest = yaml.slice(start + 1)
  const next = rest.slice(1).search(/\n {2}\S|\n\S/)
  return next === -1 ? rest : rest.slice(0, next + 1)
}

describe.skipIf(!compose)('compose.yaml', () => {
  it('refuses to start without SITE_DOMAIN, and says what to set', async () => {
    const rendered = await renderCompose({})
    expect(rendered.code).not.toBe(0)
    expect(rendered.output).toMatch(/Set SITE_DOMAIN/)
  })

  it('publishes 80 and 443 on Caddy only; the site behind it trusts its header, sends HSTS and keeps its data in a volume', async () => {
    const rendered = await renderCompose({ SITE_DOMAIN: 'lab.example.com' })
    expect(rendered.code, rendered.output).toBe(0)
    const site = serviceBlock(rendered.output, 'site')
    const caddy = serviceBlock(rendered.output, 'caddy')
    expect(site).toMatch(/SITE_URL: https:\/\/lab\.example\.com/)
    expect(site).toMatch(/TRUST_PROXY_HEADER: x-forwarded-for/)
    expect(site).toMatch(/HSTS: "?true"?/)
    expect(site).toMatch(/read_only: true/)
    expect(site).toMatch(/site-data:\/data/)
    expect(site).toMatch(/restart: unless-stopped/)
    // The site's only published port is the studio's, on the host's loopback.
    const sitePorts = site.match(/^ {4}- .*:\d+\/tcp$|published: .*/gm) ?? []
    expect(sitePorts.every((line) => line.includes('127.0.0.1'))).toBe(true)
    expect(caddy).toMatch(/published: 80/)
    expect(caddy).toMatch(/published: 443/)
    expect(caddy).toMatch(/caddy-data:\/data/)
    expect(caddy).toMatch(/deploy\/Caddyfile:\/etc\/caddy\/Caddyfile/)
  })

  it('passes every variable of .env.example from .env to the site, but those the image or compose decide', async () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8')
    const names = [
      ...new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1] ?? '')),
    ]
    // The image sets these for the container; compose sets these itself; only a build reads this one.
    const image = ['HOST', 'PORT', 'DATA_DIR']
    const fixed = { SITE_URL: 'https://lab.example.com', TRUST_PROXY_HEADER: 'x-forwarded-for', HSTS: 'true' }
    const buildOnly = ['VITE_SUPABASE_ANON_KEY']
    const passed = names.filter((name) => ![...image, ...Object.keys(fixed), ...buildOnly].includes(name))
    expect(passed).toEqual(expect.arrayContaining(['RATE_LIMIT_PER_MINUTE', 'LOG_LEVEL', 'DATABASE_URL']))
    const values = Object.fromEntries(passed.map((name, index) => [name, `value-${index}`]))
    const rendered = await renderCompose({ SITE_DOMAIN: 'lab.example.com', ...values, HOST: '10.0.0.9' })
    expect(rendered.code, rendered.output).toBe(0)
    const site = serviceBlock(rendered.output, 'site')
    for (const [name, value] of Object.entries(values))
      expect(site, name).toMatch(new RegExp(`${name}: "?${value}"?\n`))
    for (const [name, value] of Object.entries(fixed))
      expect(site, name).toMatch(new RegExp(`${name}: "?${value}"?\n`))
    for (const name of [...image, ...buildOnly]) expect(site, name).not.toMatch(new RegExp(`\\b${name}:`))
  })
})
