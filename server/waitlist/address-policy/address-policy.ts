import { WHATWG_EMAIL } from '../admin/email-rule'
import { type DomainListOptions, DomainLists } from './domain-lists'
import { MailDomainCheck, type MailDomainCheckOptions } from './mail-domain-check'

/** Why an address is refused before anything is stored, in words a person and an agent can act on. */
export interface AddressRefusal {
  reason: 'disposable' | 'blocked' | 'no-mail'
  /** The address's domain (never the address: refusals are logged). */
  domain: string
  message: string
  details: string
  hint: string
}

export interface AddressPolicyOptions extends DomainListOptions {
  /** Refuse domains that cannot receive mail (CHECK_MAIL_DOMAINS), asking these resolvers. */
  checkMailDomains?: Pick<MailDomainCheckOptions, 'servers' | 'budgetMs'>
}

const RELAYS_WELCOME =
  'Use an address you keep; forwarding addresses (Firefox Relay, DuckDuckGo, SimpleLogin, addy.io, Hide My Email) are welcome.'

const WORDS: Record<AddressRefusal['reason'], { message: string; hint: string }> = {
  disposable: { message: 'Addresses at disposable e-mail services are not accepted', hint: RELAYS_WELCOME },
  blocked: { message: 'Addresses at this domain are not accepted', hint: 'Use another address.' },
  'no-mail': { message: 'This address cannot receive mail', hint: 'Check the address for a typo.' },
}

function refusal(reason: AddressRefusal['reason'], domain: string, why: string): AddressRefusal {
  return { reason, domain, ...WORDS[reason], details: `${domain} ${why}.` }
}

/**
 * Which addresses the public ways in (the REST insert with a public key, the no-script form, the
 * MCP tool) refuse before anything is stored: domains on the lists (a Map read on the domain and
 * its parents, no I/O), then, only when switched on, domains that DNS says cannot receive mail.
 * The owner's own ways (import, invite, a service_role insert) are not checked (ADR 060).
 */
export class AddressPolicy {
  private readonly lists: DomainLists
  private readonly mail: MailDomainCheck | undefined

  constructor(options: AddressPolicyOptions) {
    this.lists = new DomainLists(options)
    this.mail = options.checkMailDomains && new MailDomainCheck(options.checkMailDomains)
  }

  /** How many domains the lists name. */
  get listedDomains(): number {
    return this.lists.size
  }

  /** Whether refusals may need DNS (CHECK_MAIL_DOMAINS): only then is `refusal` worth awaiting. */
  get asksDns(): boolean {
    return this.mail !== undefined
  }

  /**
   * Why the lists refuse this address, or undefined: synchronous, a few Map reads, so the insert
   * path pays no more than that. Anything that is not a string with an `@` is left to the
   * database's own checks.
   */
  listed(email: unknown): AddressRefusal | undefined {
    if (typeof email !== 'string') return undefined
    const at = email.lastIndexOf('@')
    if (at < 0) return undefined
    const domain = email.slice(at + 1).toLowerCase()
    const listed = this.lists.refused(domain)
    if (listed === 'disposable') return refusal(listed, domain, 'hands out throwaway addresses')
    if (listed) return refusal(listed, domain, "is on this waitlist's block list")
    return undefined
  }

  /**
   * Why this address is refused, or undefined: the lists, then, when switched on, DNS. An address
   * the grammar refuses is the database's to refuse: DNS is never asked about one.
   */
  async refusal(email: unknown): Promise<AddressRefusal | undefined> {
    const listed = this.listed(email)
    if (listed || !this.mail || typeof email !== 'string') return listed
    if (email.length > 254 || !WHATWG_EMAIL.test(email)) return undefined
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase()
    switch (await this.mail.verdict(domain)) {
      case 'no-host':
        return refusal('no-mail', domain, 'has no mail server (no MX, A or AAAA record)')
      case 'null-mx':
        return refusal('no-mail', domain, 'says it accepts no mail (a null MX record)')
      default:
        return undefined
    }
  }
}

/**
 * The policy the variables describe (address-policy-env.ts). Here, not beside the variables: the
 * env schema stays free of the domain lists, which the CLI's commands never read.
 */
export function addressPolicyOf(env: {
  BLOCK_DISPOSABLE: boolean
  ALLOWED_DOMAINS: string[]
  BLOCKED_DOMAINS: string[]
  CHECK_MAIL_DOMAINS: boolean
  DNS_SERVERS: string[]
}): AddressPolicy {
  return new AddressPolicy({
    blockDisposable: env.BLOCK_DISPOSABLE,
    allowed: env.ALLOWED_DOMAINS,
    blocked: env.BLOCKED_DOMAINS,
    checkMailDomains: env.CHECK_MAIL_DOMAINS ? { servers: env.DNS_SERVERS } : undefined,
  })
}
