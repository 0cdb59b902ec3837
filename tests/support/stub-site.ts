import type { StaticSite } from '../../server/http/static-site'

const page = {
  body: Buffer.from('<h1>page</h1>'),
  contentType: 'text/html',
  etag: '"x"',
  cacheControl: 'no-cache',
}

/** A built site of one page, for tests that call createApp() in-process without a dist/. */
export const stubSite: StaticSite = { home: page, notFound: page, files: new Map(), scriptHashes: [] }
