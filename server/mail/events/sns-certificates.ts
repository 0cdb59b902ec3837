import { X509Certificate } from 'node:crypto'
import { type Agent, get } from 'node:https'

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
 * certificates, a few dozen failures, a few fetches at once. Callers check the URL's shape first.
 */
export class SnsCertificates {
  private readonly certificates = new Map<string, { pem: string; until: number }>()
  private readonly failures = new Map<string, number>()
  private readonly fetching = new Map<string, Promise<string | undefined>>()

  constructor(private readonly agent?: Agent) {}

  /** The certificate at `url`, or undefined when it cannot be had now. */
  get(url: string): Promise<string | undefined> {
    const now = Date.now()
    const known = this.certificates.get(url)
    if (known && known.until > now) return Promise.resolve(known.pem)
    for (const [failed, until] of this.failures) if (until <= now) this.failures.delete(failed)
    if (this.failures.has(url) || this.failures.size >= MAX_FAILURES) return Promise.resolve(undefined)
    const pending = this.fetching.get(url)
    if (pending) return pending
    if (this.fetching.size >= MAX_FETCHING) return Promise.resolve(undefined)
    const fetched = this.fetch(url)
    this.fetching.set(url, fetched)
    return fetched
  }

  private async fetch(url: string): Promise<string | undefined> {
    try {
      const pem = await fetchCertificate(url, this.agent)
      if (pem === undefined) {
        this.failures.set(url, Date.now() + KEEP_FAILURE_MS)
        return undefined
      }
      this.certificates.delete(url)
      if (this.certificates.size >= MAX_CERTIFICATES) {
        const oldest = this.certificates.keys().next().value
        if (oldest !== undefined) this.certificates.delete(oldest)
      }
      this.certificates.set(url, { pem, until: Date.now() + KEEP_CERTIFICATE_MS })
      return pem
    } finally {
      this.fetching.delete(url)
    }
  }
}
