import { siteHost } from './source-of'

/**
 * The site's own hosts, so that a Referer from them is not "another site": those of its origins
 * (SITE_URL, the listening address; known once it listens) and the request's own Host.
 */
export class OwnHosts {
  readonly #siteOrigins: () => readonly string[]
  #origins: readonly string[] | undefined
  #hosts = new Set<string>()

  constructor(siteOrigins: () => readonly string[]) {
    this.#siteOrigins = siteOrigins
  }

  /** Whether `host` (lowercased, without www.) is this site, for a request to `requestUrl`. */
  has(host: string, requestUrl: string): boolean {
    const origins = this.#siteOrigins()
    if (origins !== this.#origins) {
      this.#origins = origins
      this.#hosts = new Set(origins.map(siteHost).filter((known) => known !== undefined))
    }
    return this.#hosts.has(host) || siteHost(requestUrl) === host
  }
}
