// mailauth 4.x ships no types: the parts the preflight uses (its SPF evaluation and DMARC's
// organizational-domain alignment), and the authenticate() the tests read a message with.
declare module 'mailauth/lib/spf' {
  export function spf(options: {
    sender: string
    ip: string
    helo: string
    mta?: string
    resolver: (name: string, type: string) => Promise<unknown>
  }): Promise<{ status: { result: string; comment?: string } }>
}

declare module 'mailauth/lib/tools' {
  /** The entry of `domains` aligned with `fromDomain` (strictly, or by organizational domain), else false. */
  export function getAlignment(
    fromDomain: string,
    domains: readonly string[],
    strict?: boolean,
  ): { domain: string } | false
}

declare module 'mailauth' {
  export function authenticate(
    message: Buffer | string,
    options: {
      ip: string
      helo: string
      sender: string
      mta?: string
      resolver: (name: string, type: string) => Promise<unknown>
      disableArc?: boolean
      disableBimi?: boolean
    },
  ): Promise<{
    dkim: {
      results: {
        signingDomain: string
        status: { result: string; aligned?: string | false }
        signingHeaders?: { keys: string }
      }[]
    }
    spf: { status: { result: string } }
    dmarc: { status: { result: string }; alignment?: unknown }
  }>
}

declare module 'mailauth/lib/dmarc/get-dmarc-record' {
  /** The one DMARC record for the domain, else its organizational domain's; false when none (or several). */
  export default function getDmarcRecord(
    domain: string,
    resolver: (name: string, type: string) => Promise<unknown>,
  ): Promise<false | (Record<string, string | number | boolean> & { rr: string; isOrgRecord: boolean })>
}
