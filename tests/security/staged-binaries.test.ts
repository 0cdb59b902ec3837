import { execFileSync, spawnSync } from 'node:child_process'
import { chmod, lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { findPostgresBinaries } from '../../server/db/embedded/binaries'
import { clusterAccount } from '../../server/db/embedded/cluster-account'
import { startEmbeddedCluster } from '../../server/db/embedded/embedded-cluster'
import { asRoot, NOBODY } from './support'

const account = asRoot ? clusterAccount() : undefined
if (!account)
  console.warn(
    'SKIPPED staged binaries: only a root server runs PostgreSQL as another account (run the tests as root)',
  )

/** Where a root server used to copy the binaries its cluster account could not reach: guessable. */
function oldSharedCopy(packageDir: string, uid: number): string {
  const hex = Buffer.from(packageDir).toString('hex').slice(-16)
  return join(tmpdir(), `lab-site-${basename(packageDir)}-${uid}-${hex}`)
}

describe.skipIf(!account)('binaries the cluster account cannot reach', () => {
  const cleanups: string[] = []
  afterAll(async () => {
    for (const path of cleanups) await rm(path, { recursive: true, force: true })
  })

  it('are staged root-only under DATA_DIR; programs another account planted in /tmp never run', async () => {
    if (!account) return
    // A checkout in a private directory (a CI job's 0700 clone): the package's binaries are hidden.
    const hidden = await mkdtemp(join(tmpdir(), 'lab-site-private-checkout-'))
    cleanups.push(hidden)
    const native = dirname(dirname(findPostgresBinaries().postgres))
    execFileSync('cp', ['-a', native, join(hidden, 'native')])
    const bin = join(hidden, 'native', 'bin')
    const binaries = {
      initdb: join(bin, 'initdb'),
      postgres: join(bin, 'postgres'),
      pgCtl: join(bin, 'pg_ctl'),
    }
    expect(
      spawnSync('test', ['-x', binaries.postgres], { uid: account.uid, gid: account.gid }).status,
    ).not.toBe(0)

    // `nobody` plants programs that record being run, where the old code looked for its copy.
    const witness = await mkdtemp(join(tmpdir(), 'lab-site-witness-'))
    cleanups.push(witness)
    await chmod(witness, 0o777)
    const planted = oldSharedCopy(hidden, account.uid)
    cleanups.push(planted)
    const fake = `#!/bin/sh\nenv > "${witness}/ran-$(basename "$0")"\nexit 1\n`
    const plant = spawnSync(
      'sh',
      [
        '-c',
        'mkdir -p "$1/bin" && for p in initdb postgres pg_ctl; do printf "%s" "$2" > "$1/bin/$p"; chmod 755 "$1/bin/$p"; done',
        'sh',
        planted,
        fake,
      ],
      { ...NOBODY },
    )
    expect(plant.status).toBe(0)

    const parent = await mkdtemp(join(tmpdir(), 'lab-site-staged-'))
    cleanups.push(parent)
    await chmod(parent, 0o755)
    const dataDir = join(parent, 'data')
    const logged: string[] = []
    const cluster = await startEmbeddedCluster(dataDir, (line) => logged.push(line), { binaries })
    await cluster.stop()

    expect(await readdir(witness)).toEqual([])
    const stage = join(dataDir, 'postgres-binaries')
    expect(logged.join('\n')).toContain(`copying the PostgreSQL binaries to ${stage}`)
    for (const path of [dataDir, stage, join(stage, 'bin'), join(stage, 'bin', 'postgres')]) {
      const stats = await lstat(path)
      expect({ path, uid: stats.uid, othersWrite: (stats.mode & 0o022) !== 0 }).toEqual({
        path,
        uid: 0,
        othersWrite: false,
      })
    }
  })

  it('a DATA_DIR on a path another account could change: refused, saying what to change', async () => {
    if (!account) return
    const hidden = await mkdtemp(join(tmpdir(), 'lab-site-private-checkout-'))
    cleanups.push(hidden)
    await mkdir(join(hidden, 'native', 'bin'), { recursive: true })
    const postgres = join(hidden, 'native', 'bin', 'postgres')
    const binaries = { initdb: postgres, postgres, pgCtl: postgres }
    // A directory of nobody's above DATA_DIR: it could swap what lies below for its own.
    const theirs = await mkdtemp(join(tmpdir(), 'lab-site-theirs-'))
    cleanups.push(theirs)
    await chmod(theirs, 0o755)
    execFileSync('chown', [`${NOBODY.uid}:${NOBODY.gid}`, theirs])
    const start = startEmbeddedCluster(join(theirs, 'data'), () => {}, { binaries })
    await expect(start).rejects.toThrow(`${theirs} belongs to uid ${NOBODY.uid}, not root`)
    await expect(start).rejects.toThrow(/let that account through to the binaries \(chmod o\+x/)
  })
})
