import { disposableEmailBlocklist } from 'disposable-email-domains-js'
import { FORWARDING_RELAYS } from './forwarding-relays'

/** Why a domain is refused by a list: a throwaway service, or the lab's own word. */
export type ListedAs = 'disposable' | 'blocked'

export interface DomainListOptions {
  /** Refuse the domains of the maintained list of disposable services (BLOCK_DISPOSABLE). */
  blockDisposable: boolean
  /** The lab's own exceptions (ALLOWED_DOMAINS) and refusals (BLOCKED_DOMAINS), lower case. */
  allowed: readonly string[]
  blocked: readonly string[]
}

type Verdict = 'allowed' | ListedAs

/**
 * One Map from a domain to its verdict, built once at start: the lab's lists, then the forwarding
 * relays, then the disposable list, each entry set only if a stronger list has not already set it.
 * A lookup is a Map read on the domain and on each of its parents, the nearest one deciding, so a
 * subdomain of a blocked domain is blocked and the lab can allow one name under it.
 */
export class DomainLists {
  private readonly verdicts = new Map<string, Verdict>()

  constructor(options: DomainListOptions) {
    const set = (domains: Iterable<string>, verdict: Verdict) => {
      for (const domain of domains) if (!this.verdicts.has(domain)) this.verdicts.set(domain, verdict)
    }
    set(options.blocked, 'blocked')
    set(options.allowed, 'allowed')
    set(FORWARDING_RELAYS, 'allowed')
    if (options.blockDisposable) set(disposableEmailBlocklist(), 'disposable')
  }

  /** How many domains the lists name (for the start-up log). */
  get size(): number {
    return this.verdicts.size
  }

  /** Why `domain` (lower case) is refused, or undefined when no list refuses it. */
  refused(domain: string): ListedAs | undefined {
    let name = domain
    for (;;) {
      const verdict = this.verdicts.get(name)
      if (verdict) return verdict === 'allowed' ? undefined : verdict
      const dot = name.indexOf('.')
      if (dot < 0) return undefined
      name = name.slice(dot + 1)
    }
  }
}
