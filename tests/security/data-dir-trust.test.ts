import { chmod, chown, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadApiKeys } from '../../server/auth/api-keys'
import { asRoot, checkoutReadableByNobody, NOBODY, startRefused } from './support'

if (!asRoot)
  console.warn('SKIPPED 3 DATA_DIR tests: they need root to lay out directories and files of other accounts')
else if (!checkoutReadableByNobody)
  console.warn(
    'SKIPPED "a normal user on a root-owned DATA_DIR": the account nobody cannot read this checkout; ' +
      'clone it somewhere others may read to run this test',
  )

let parent: string
beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'lab-site-trust-'))
  await chmod(parent, 0o755)
})
afterAll(() => rm(parent, { recursive: true, force: true }))

async function dataDir(name: string): Promise<string> {
  const dir = join(parent, name)
  await mkdir(dir)
  return dir
}

describe('DATA_DIR and its secrets belong to the user the server runs as', () => {
  it.skipIf(!asRoot)(
    "another account's 0777 DATA_DIR with its own jwt-secret and postgres-password: the root server refuses it",
    async () => {
      // As `nobody` would lay it out: secrets of its choosing, in a directory anyone may change.
      const dir = await dataDir('planted')
      await writeFile(join(dir, 'jwt-secret'), `${'n'.repeat(48)}\n`, { mode: 0o600 })
      await writeFile(join(dir, 'postgres-password'), 'chosen-by-nobody\n', { mode: 0o600 })
      for (const path of [dir, join(dir, 'jwt-secret'), join(dir, 'postgres-password')])
        await chown(path, NOBODY.uid, NOBODY.gid)
      await chmod(dir, 0o777)
      const { code, output } = await startRefused({ DATA_DIR: dir })
      expect(code).toBe(1)
      expect(output).toContain(
        `The data directory ${dir} belongs to uid ${NOBODY.uid}, but the server runs as uid 0`,
      )
      expect(output).toContain(`chown root ${dir}`)
      expect(output).not.toMatch(/Serving|^\s+at /m)
    },
  )

  it.skipIf(!asRoot)(
    'a DATA_DIR of its own that others may write: refused with the chmod that fixes it',
    async () => {
      const dir = await dataDir('loose')
      await chmod(dir, 0o777)
      const { code, output } = await startRefused({ DATA_DIR: dir })
      expect(code).toBe(1)
      expect(output).toContain(`is writable by every account (mode 0777)`)
      expect(output).toContain(`chmod go-w ${dir}`)
    },
  )

  it.skipIf(!checkoutReadableByNobody)(
    "a normal user on a root-owned DATA_DIR (a container's volume): the uid and the chown, no stack trace",
    async () => {
      const dir = await dataDir('volume')
      const home = await dataDir('nobody-home')
      await chown(home, NOBODY.uid, NOBODY.gid)
      const { code, output } = await startRefused({ DATA_DIR: dir, HOME: home }, NOBODY)
      expect(code).toBe(1)
      expect(output).toContain(
        `The data directory ${dir} belongs to uid 0, but the server runs as uid ${NOBODY.uid}`,
      )
      expect(output).toContain(`chown -R ${NOBODY.uid}:${NOBODY.gid} ${dir}`)
      expect(output).not.toMatch(/^\s+at /m)
    },
  )

  it('a missing DATA_DIR is created private: 0700, or 0711 as root for the cluster account to get through', async () => {
    const dir = join(parent, 'new', 'data')
    await loadApiKeys({ dataDir: dir, databaseUrl: undefined })
    expect(((await stat(dir)).mode & 0o777).toString(8)).toBe(asRoot ? '711' : '700')
    expect(((await stat(join(dir, 'jwt-secret'))).mode & 0o777).toString(8)).toBe('600')
  })

  it('a DATA_DIR that is a symbolic link is refused', async () => {
    const real = await dataDir('real')
    const link = join(parent, 'link')
    await symlink(real, link)
    await expect(loadApiKeys({ dataDir: link, databaseUrl: undefined })).rejects.toThrow(
      `The data directory ${link} is a symbolic link`,
    )
  })

  it('a secret that is a symbolic link, readable by others, or not ours is refused, never read', async () => {
    const dir = await dataDir('secrets')
    const secret = join(dir, 'jwt-secret')
    await writeFile(join(dir, 'elsewhere'), 's'.repeat(48), { mode: 0o600 })
    await symlink(join(dir, 'elsewhere'), secret)
    await expect(loadApiKeys({ dataDir: dir, databaseUrl: undefined })).rejects.toThrow(
      `${secret} is a symbolic link`,
    )
    await rm(secret)
    await writeFile(secret, 's'.repeat(48), { mode: 0o644 })
    await chmod(secret, 0o644)
    await expect(loadApiKeys({ dataDir: dir, databaseUrl: undefined })).rejects.toThrow(
      `${secret} has mode 0644`,
    )
    await expect(loadApiKeys({ dataDir: dir, databaseUrl: undefined })).rejects.toThrow(`chmod 600 ${secret}`)
    if (asRoot) {
      await chmod(secret, 0o600)
      await chown(secret, NOBODY.uid, NOBODY.gid)
      await expect(loadApiKeys({ dataDir: dir, databaseUrl: undefined })).rejects.toThrow(
        `${secret} belongs to uid ${NOBODY.uid}, not to uid 0 that runs the server`,
      )
    }
  })
})
