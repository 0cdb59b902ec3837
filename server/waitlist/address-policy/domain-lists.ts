import { disposableEmailBlocklist } from 'disposable-email-domains-js'
import { loadMailcheckerList, SortedDomains } from './broad-list'
import { FORWARDING_RELAYS } from './forwarding-relays'
import { KEPT_MAILBOXES, MORE_DISPOSABLE } from './list-corrections'

/** Why a domain is refused by a list: a throwaway service, or the lab's own word. */
export type ListedAs = 'disposable' | 'blocked'

export interface DomainListOptions {
  /** Refuse the domains of the maintained lists of disposable services (BLOCK_DISPOSABLE). */
  blockDisposable: boolean
  /** The lab's own exceptions (ALLOWED_DOMAINS) and refusals (BLOCKED_DOMAINS), lower case. */
  allowed: readonly string[]
  blocked: readonly string[]
}

type Verdict = 'allowed' | ListedAs

/**
 * One Map from a domain to its verdict, built once at start: the lab's lists, then the forwarding
 * relays and the mailboxes the broad list gets wrong, then the community list (disposable-email-
 * domains, 9,000 domains), each entry set only if a stronger list has not already set it. Behind it,
 * mailchecker's 56,000 domains, kept as sorted bytes outside the heap (broad-list.ts), not in the
 * Map. A lookup reads the domain and each of its parents, the nearest one deciding, so a subdomain
 * of a blocked domain is blocked and the lab can allow one name under it.
 */
export class DomainLists {
  private readonly verdicts = new Map<string, Verdict>()
  private readonly broad: SortedDomains

  constructor(options: DomainListOptions) {
    const set = (domains: Iterable<string>, verdict: Verdict) => {
      for (const domain of domains) if (!this.verdicts.has(domain)) this.verdicts.set(domain, verdict)
    }
    set(options.blocked, 'blocked')
    set(options.allowed, 'allowed')
    set(FORWARDING_RELAYS, 'allowed')
    if (options.blockDisposable) {
      set(KEPT_MAILBOXES, 'allowed')
      set(MORE_DISPOSABLE, 'disposable')
      set(disposableEmailBlocklist(), 'disposable')
    }
    this.broad = options.blockDisposable ? loadMailcheckerList() : SortedDomains.of([])
  }

  /** How many domains the lists name (a domain on both disposable lists counts twice). */
  get size(): number {
    return this.verdicts.size + this.broad.size
  }

  /** Why `domain` (lower case) is refused, or undefined when no list refuses it. */
  refused(domain: string): ListedAs | undefined {
    let name = domain
    for (;;) {
      const verdict = this.verdicts.get(name) ?? (this.broad.has(name) ? 'disposable' : undefined)
      if (verdict) return verdict === 'allowed' ? undefined : verdict
      const dot = name.indexOf('.')
      if (dot < 0) return undefined
      name = name.slice(dot + 1)
    }
  }
}
