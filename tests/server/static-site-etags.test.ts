import { get } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'

/**
 * Validators over real HTTP (RFC 9110 8.8.3 and 13.1.2): each encoding of a file is other bytes,
 * so it has its own strong ETag, and If-None-Match is compared weakly, as a list, `*` included.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { LOG_LEVEL: 'error' } })
})
afterAll(async () => {
  await server?.cleanup()
})

const ENCODINGS = { identity: undefined, gzip: 'gzip', br: 'br' } as const
type Encoding = keyof typeof ENCODINGS

/** A GET with exactly these headers (fetch() would add its own Accept-Encoding and decode). */
function getRaw(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; etag: string; encoding?: string }> {
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, { headers }, (answer) => {
      answer.resume()
      answer.on('end', () =>
        resolve({
          status: answer.statusCode ?? 0,
          etag: String(answer.headers.etag),
          encoding: answer.headers['content-encoding'],
        }),
      )
    }).on('error', reject)
  })
}

const acceptFor = (encoding: Encoding) => ({ 'Accept-Encoding': encoding })

// The home page and a public file, both served with brotli and gzip copies.
describe.each(['/', '/llms.txt'])('ETags of %s', (path) => {
  it('one per encoding, each naming its own bytes', async () => {
    const tags: string[] = []
    for (const [encoding, served] of Object.entries(ENCODINGS) as [Encoding, string | undefined][]) {
      const answer = await getRaw(path, acceptFor(encoding))
      expect([encoding, answer.status, answer.encoding]).toEqual([encoding, 200, served])
      expect(answer.etag, encoding).toMatch(/^"[\w-]+"$/)
      tags.push(answer.etag)
    }
    expect(new Set(tags).size).toBe(3)
  })

  it('If-None-Match: its own tag, weak or in a list, or *, is a 304; another encoding’s is a 200', async () => {
    for (const encoding of Object.keys(ENCODINGS) as Encoding[]) {
      const { etag } = await getRaw(path, acceptFor(encoding))
      const revalidate = (ifNoneMatch: string) =>
        getRaw(path, { ...acceptFor(encoding), 'If-None-Match': ifNoneMatch })
      for (const ifNoneMatch of [etag, `W/${etag}`, `"stale", ${etag}`, `"a","b" ,W/${etag}`, '*']) {
        const answer = await revalidate(ifNoneMatch)
        expect([encoding, ifNoneMatch, answer.status, answer.etag]).toEqual([
          encoding,
          ifNoneMatch,
          304,
          etag,
        ])
      }
      expect((await revalidate('"stale", W/"other"')).status, encoding).toBe(200)
      for (const other of Object.keys(ENCODINGS) as Encoding[]) {
        if (other === encoding) continue
        const { etag: otherTag } = await getRaw(path, acceptFor(other))
        expect([encoding, other, (await revalidate(otherTag)).status]).toEqual([encoding, other, 200])
      }
    }
  })
})
