import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_DATA_DIR, defaultDataDir } from '../../server/boot/default-data-dir'

// As root (these machines, and a new VPS): where `npm start` keeps its data when DATA_DIR is unset.
describe.runIf(process.getuid?.() === 0)('the default DATA_DIR as root', () => {
  let scratch: string
  let home: string
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'lab-site-placement-'))
    await chmod(scratch, 0o755)
    home = join(scratch, 'home')
  })
  afterAll(() => rm(scratch, { recursive: true, force: true }))

  it("is ./data where PostgreSQL's account can enter it", async () => {
    const open = join(scratch, 'open', 'lab-site')
    await mkdir(open, { recursive: true })
    expect(defaultDataDir(undefined, { cwd: open, home })).toEqual({ dataDir: DEFAULT_DATA_DIR })
  })

  it('moves to a home of its own, named after the checkout, under a private directory such as /root', async () => {
    const checkout = join(scratch, 'private', 'lab-site')
    await mkdir(checkout, { recursive: true })
    await chmod(join(scratch, 'private'), 0o700)
    const placed = defaultDataDir(undefined, { cwd: checkout, home })
    expect(placed.dataDir).toMatch(new RegExp(`^${home}/lab-site-[0-9a-f]{8}$`))
    expect(placed.note).toContain(`cannot enter ${checkout}/data (${scratch}/private is private)`)
    expect(placed.note).toContain(`the data is kept in ${placed.dataDir} instead`)
    // The same place every time, so a restart and the owner's CLI find the same data.
    expect(defaultDataDir(undefined, { cwd: checkout, home: `${home}/` }).dataDir).toBe(placed.dataDir)
    // DATABASE_URL: no cluster, nothing to move.
    expect(defaultDataDir('postgres://db/x', { cwd: checkout, home }).dataDir).toBe(DEFAULT_DATA_DIR)
  })

  it("stays in ./data when a cluster is there already, or when the home is not root's alone", async () => {
    const kept = join(scratch, 'kept', 'lab-site')
    await mkdir(join(kept, 'data', 'postgres'), { recursive: true })
    await writeFile(join(kept, 'data', 'postgres', 'PG_VERSION'), '18\n')
    await chmod(join(scratch, 'kept'), 0o700)
    expect(defaultDataDir(undefined, { cwd: kept, home }).dataDir).toBe(DEFAULT_DATA_DIR)

    const other = join(scratch, 'other', 'lab-site')
    await mkdir(other, { recursive: true })
    await chmod(join(scratch, 'other'), 0o700)
    const shared = join(scratch, 'shared-home')
    await mkdir(shared, { mode: 0o777 })
    await chmod(shared, 0o777)
    expect(defaultDataDir(undefined, { cwd: other, home: shared }).dataDir).toBe(DEFAULT_DATA_DIR)
  })
})

describe('the default DATA_DIR as a normal user', () => {
  it('is ./data: PostgreSQL runs as this user, who can enter it', () => {
    expect(defaultDataDir(undefined, { cwd: tmpdir(), asRoot: false })).toEqual({ dataDir: DEFAULT_DATA_DIR })
  })
})
