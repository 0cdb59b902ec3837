import { Resolver } from 'node:dns/promises'
import * as z from 'zod'
import { optional } from '../../base/optional-env'

// A host name as the address grammar's domain part has it (labels of letters, digits and hyphens).
const DOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/

function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '')
}

/** A comma-separated list of domains, lower-cased; each bad one named. */
const domainList = z
  .string()
  .optional()
  .transform((value, context) => {
    const domains = commaList(value)
    for (const domain of domains) {
      if (domain.length > 253 || !DOMAIN.test(domain)) {
        context.addIssue({ code: 'custom', message: `"${domain}" is not a domain such as example.com` })
      }
    }
    return [...new Set(domains)]
  })

/** Resolvers as Node's DNS takes them: `1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`. */
const dnsServers = z
  .string()
  .optional()
  .transform((value, context) => {
    const servers = commaList(value)
    try {
      if (servers.length > 0) new Resolver().setServers(servers)
    } catch {
      context.addIssue({ code: 'custom', message: 'must be IP addresses, each with an optional :port' })
    }
    return servers
  })

/** The junk-address variables (ADR 060), merged into the server's env schema. */
export const addressPolicyEnv = {
  /** Refuse addresses at disposable e-mail services (a maintained list); forwarding relays are accepted. */
  BLOCK_DISPOSABLE: optional(z.stringbool()).transform((v) => v ?? true),
  /** Domains accepted even when a list names them; subdomains too. */
  ALLOWED_DOMAINS: domainList,
  /** Domains refused, whatever the lists say; subdomains too. */
  BLOCKED_DOMAINS: domainList,
  /** Refuse domains that cannot receive mail (no MX, A or AAAA; a null MX), asked of DNS at signup. */
  CHECK_MAIL_DOMAINS: optional(z.stringbool()).transform((v) => v ?? false),
  /** The resolvers CHECK_MAIL_DOMAINS asks; the system's by default. */
  DNS_SERVERS: dnsServers,
}

/** A domain in both lists is a mistake to say at start-up, not a precedence to guess. */
export function domainListsOverlap(env: { ALLOWED_DOMAINS: string[]; BLOCKED_DOMAINS: string[] }): string[] {
  return env.ALLOWED_DOMAINS.filter((domain) => env.BLOCKED_DOMAINS.includes(domain))
}
