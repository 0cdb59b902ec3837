import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSealed, PieceUnreadable, seal, sealFile } from '../../server/backup/sealed-piece'

/** A WAL segment goes out sealed as it is read; it must open as a piece sealed whole does. */
describe('a backup piece sealed from a file, as it is read', () => {
  const key = randomBytes(32)
  let dir = ''
  let path = ''
  // Half random, half repeated text: several chunks of the read stream, some of it compressible.
  const content = Buffer.concat([randomBytes(1_500_000), Buffer.from('insert into waitlist '.repeat(80_000))])

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sealed-piece-'))
    path = join(dir, '000000010000000000000001')
    await writeFile(path, content)
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('opens to the file as it was, under its own name only', async () => {
    const sealed = await buffer(sealFile(path, key, 'wal/000000010000000000000001'))
    expect(sealed.length).toBeLessThan(content.length)
    expect(openSealed(sealed, key, 'wal/000000010000000000000001').equals(content)).toBe(true)
    expect(() => openSealed(sealed, key, 'wal/000000010000000000000002')).toThrow(PieceUnreadable)
  })

  it('has the layout of a piece sealed whole', async () => {
    const whole = await seal(Buffer.from('the erased list'), key, 'erasures/x.json')
    const small = join(dir, 'small')
    await writeFile(small, 'the erased list')
    const streamed = await buffer(sealFile(small, key, 'erasures/x.json'))
    expect(streamed.subarray(0, 8)).toEqual(whole.subarray(0, 8))
    expect(openSealed(streamed, key, 'erasures/x.json').toString()).toBe('the erased list')
  })

  it('fails, rather than ending short, when the file cannot be read', async () => {
    await expect(buffer(sealFile(join(dir, 'gone'), key, 'wal/gone'))).rejects.toThrow(/ENOENT/)
  })
})
