import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { pipeline, type Readable, Transform } from 'node:stream'
import { promisify } from 'node:util'
import { createGzip, gunzipSync, gzip } from 'node:zlib'

/**
 * A piece of the backup as it leaves the machine: gzip, then AES-256-GCM under BACKUP_KEY, so the
 * store (a disk, a bucket) holds nothing it can read or change unnoticed. Layout: a magic word,
 * the 12-byte nonce, the ciphertext, the 16-byte tag. The piece's name is bound in as associated
 * data: a segment renamed to stand for another fails to open.
 */
const MAGIC = Buffer.from('LABBAK01')
const NONCE = 12
const TAG = 16

// zlib's own threads, not the event loop: a 16 MiB segment's gzip held every request for a few
// hundred milliseconds (the insert bench's p99 doubled with BACKUP_URL on). Level 1: on a WAL
// segment 211 ms of CPU for 8.5 MiB where level 6 took 341 ms for 8.2, CPU the signups share.
const gzipped = promisify(gzip)
const LEVEL = 1

export async function seal(plain: Buffer, key: Buffer, name: string): Promise<Buffer> {
  const nonce = randomBytes(NONCE)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(Buffer.from(name))
  const body = Buffer.concat([cipher.update(await gzipped(plain, { level: LEVEL })), cipher.final()])
  return Buffer.concat([MAGIC, nonce, body, cipher.getAuthTag()])
}

export class PieceUnreadable extends Error {
  override name = 'PieceUnreadable'
}

export function openSealed(sealed: Buffer, key: Buffer, name: string): Buffer {
  if (sealed.length < MAGIC.length + NONCE + TAG || !sealed.subarray(0, MAGIC.length).equals(MAGIC))
    throw new PieceUnreadable(`${name} is not a piece of a waitlist backup`)
  const nonce = sealed.subarray(MAGIC.length, MAGIC.length + NONCE)
  const decipher = createDecipheriv('aes-256-gcm', key, nonce)
  decipher.setAAD(Buffer.from(name))
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG))
  try {
    const body = sealed.subarray(MAGIC.length + NONCE, sealed.length - TAG)
    return gunzipSync(Buffer.concat([decipher.update(body), decipher.final()]))
  } catch {
    throw new PieceUnreadable(`${name} does not open with this BACKUP_KEY (another key, or a damaged piece)`)
  }
}

/**
 * A file sealed as it is read, as seal() would seal it whole: a 16 MiB WAL segment goes out a chunk
 * at a time. Read whole, each segment, its gzip and its ciphertext were in memory at once, and
 * Node's RSS reached 190 MiB after the insert bench with BACKUP_URL on (118 MiB after 2,000).
 */
export function sealFile(path: string, key: Buffer, name: string): Readable {
  const sealed = sealStream(key, name)
  // A read or gzip failure destroys `sealed` with it, so the store's write fails and keeps nothing.
  pipeline(createReadStream(path), createGzip({ level: LEVEL }), sealed, () => {})
  return sealed
}

/** seal() as a stream, for a piece too large to hold: gzip (the caller's), then AES-256-GCM, the tag last. */
export function sealStream(key: Buffer, name: string): Transform {
  const nonce = randomBytes(NONCE)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(Buffer.from(name))
  let started = false
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!started) {
        this.push(Buffer.concat([MAGIC, nonce]))
        started = true
      }
      done(null, cipher.update(chunk))
    },
    flush(done) {
      if (!started) this.push(Buffer.concat([MAGIC, nonce]))
      this.push(cipher.final())
      done(null, cipher.getAuthTag())
    },
  })
}

/**
 * openSealed() as a stream, given the piece's head (magic and nonce) and tag, read apart: GCM checks
 * the tag at the end, so nothing read is trusted until the stream ends without an error.
 */
export function openStream(key: Buffer, name: string, head: Buffer, tag: Buffer): Transform {
  if (head.length !== MAGIC.length + NONCE || !head.subarray(0, MAGIC.length).equals(MAGIC))
    throw new PieceUnreadable(`${name} is not a piece of a waitlist backup`)
  const decipher = createDecipheriv('aes-256-gcm', key, head.subarray(MAGIC.length))
  decipher.setAAD(Buffer.from(name))
  decipher.setAuthTag(tag)
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, decipher.update(chunk))
    },
    flush(done) {
      try {
        done(null, decipher.final())
      } catch {
        done(
          new PieceUnreadable(`${name} does not open with this BACKUP_KEY (another key, or a damaged piece)`),
        )
      }
    },
  })
}

export const SEALED_HEAD = MAGIC.length + NONCE
export const SEALED_TAG = TAG
