import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/** A file as the server serves it: its bytes, their compressed copies, and its headers' values. */
export interface StaticFile {
  body: Buffer
  brotli?: Buffer
  gzip?: Buffer
  contentType: string
  etag: string
  cacheControl: string
}

/** Brotli and gzip copies of a text body made at start-up; none for a body too small to gain. */
export function compressed(body: Buffer, brotliQuality = 11): Pick<StaticFile, 'brotli' | 'gzip'> {
  if (body.length <= 256) return {}
  return {
    brotli: brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    gzip: gzipSync(body, { level: 9 }),
  }
}
