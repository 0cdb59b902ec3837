import { X509Certificate } from 'node:crypto'
import { type Agent, get } from 'node:https'
import { LRUCache } from 'lru-cache'

// AWS rotates the certificates SNS signs with rarely; a day in memory means one fetch a day.
const KEEP_CERTIFICATE_MS = 24 * 60 * 60_000
// A certificate that could not be had is not asked for again for a minute, whoever asks.
const KEEP_FAILURE_MS = 60_000
// SNS uses one certificate per region at a time: room for rotations and a few topics' regions.
const MAX_CERTIFICATES = 16
// Failures remembered at once; past this, nothing new is fetched until the oldest expire, so a
// stranger varying the file name makes at most this many fetches a minute.
const MAX_FAILURES = 64
// Fetches in flight at once, each for a different URL (one URL is fetched once, however many wait).
const MAX_FETCHING = 4
// A PEM certificate is under 2 KB; anything much larger is not one.
const MAX_CERTIFICATE_BYTES = 16 * 1024
const FETCH_TIMEOUT_MS = 10_000

/** GETs one certificate: a 200, under the size cap, within the time-out, that parses as X.509. */
function fetchCertificate(url: string, agent: Agent | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    const request = get(url, { agent, timeout: FETCH_TIMEOUT_MS }, (response) => {
      if (response.statusCode !== 200) {
        response.resume()
        return resolve(undefined)
      }
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size <= MAX_CERTIFICATE_BYTES) return void chunks.push(chunk)
        resolve(undefined)
        request.destroy()
      })
      response.on('end', () => {
        const pem = Buffer.concat(chunks).toString('utf8')
        try {
          new X509Certificate(pem)
          resolve(pem)
        } catch {
          resolve(undefined)
        }
      })
      response.on('error', () => resolve(undefined))
    })
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(undefined))
    // Whatever ended the exchange without a certificate (a promise settles once: a no-op after one).
    request.on('close', () => resolve(undefined))
  })
}

/**
 * SNS's signing certificates, fetched once and kept (ADR 044), and the URLs that failed, kept for a
 * minute, so that neither a good certificate nor a bad URL is fetched per message. Bounded: a few
 * certificates and a few dozen failures (lru-cache, each with its ttl), a few fetches at once (a URL
 * is fetched once, however many wait: lru-cache's fetch). Callers check the URL's shape first.
 */
export class SnsCertificates {
  private readonly failures = new LRUCache<string, true>({ max: MAX_FAILURES, ttl: KEEP_FAILURE_MS })
  /** The URLs being fetched now. */
  private readonly fetching = new Set<string>()
  private readonly certificates: LRUCache<string, string>

  constructor(agent?: Agent) {
    this.certificates = new LRUCache<string, string>({
      max: MAX_CERTIFICATES,
      ttl: KEEP_CERTIFICATE_MS,
      fetchMethod: async (url) => {
        this.fetching.add(url)
        try {
          const pem = await fetchCertificate(url, agent)
          if (pem === undefined) this.failures.set(url, true)
          return pem
        } finally {
          this.fetching.delete(url)
        }
      },
    })
  }

  /** The certificate at `url`, or undefined when it cannot be had now. */
  async get(url: string): Promise<string | undefined> {
    const known = this.certificates.get(url)
    if (known !== undefined) return known
    this.failures.purgeStale()
    if (this.failures.has(url) || this.failures.size >= MAX_FAILURES) return undefined
    if (!this.fetching.has(url) && this.fetching.size >= MAX_FETCHING) return undefined
    return this.certificates.fetch(url)
  }
}
