import type { SourceKey } from './source-of'

const MAX_REMEMBERED = 1000
const MAX_REMEMBERED_LENGTH = 512

/**
 * The sources of recent page addresses and Referers: most loads repeat a few links (the launch post,
 * a newsletter's), and reading a query string and a Referer takes a microsecond or two on every
 * load. In this process's memory only; short inputs only; forgotten in bulk when full.
 */
export class RecentSources {
  readonly #known = new Map<string, SourceKey>()

  of(url: string, referer: string | undefined, resolve: () => SourceKey): SourceKey {
    const name = referer === undefined ? url : `${url}\n${referer}`
    const known = this.#known.get(name)
    if (known) return known
    const key = resolve()
    if (name.length > MAX_REMEMBERED_LENGTH) return key
    if (this.#known.size >= MAX_REMEMBERED) this.#known.clear()
    this.#known.set(name, key)
    return key
  }
}
