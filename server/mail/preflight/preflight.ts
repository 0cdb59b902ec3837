import { randomUUID } from 'node:crypto'
import type { DkimKey } from '../dkim-signer'
import { composeMessage, type MessageContext } from '../messages/compose-message'
import { isReservedName } from '../messages/reserved-names'
import { isLoopback, type MailFrom, type MailTransportConfig } from '../transport-config'
import { checkDkim } from './dkim-check'
import { checkDmarc } from './dmarc-check'
import { DnsReader } from './dns-reader'
import { checkMx } from './mx-check'
import { type CheckLine, line } from './preflight-lines'
import { checkSpf } from './spf-check'
import { checkUnsubscribe } from './unsubscribe-check'

/** What the running server checks with: its own mail settings, never the CLI's (ADR 120). */
export interface PreflightSettings {
  mail: NonNullable<MailTransportConfig>
  /** DKIM_SELECTORS: the provider's selectors, when the relay signs. */
  providerSelectors: readonly string[]
  /** DNS_SERVERS; the system's resolver when empty. */
  dnsServers: readonly string[]
  /** SITE_URL as the links carry it. */
  context: MessageContext
}

/** The invitation as the transport would hand it to the relay, signature included. */
async function builtInvitation(context: MessageContext, from: MailFrom, dkim?: DkimKey): Promise<Buffer> {
  const { buildMessage } = await import('../smtp-transport')
  const message = composeMessage(context, {
    kind: 'invitation',
    uuid: randomUUID(),
    email: 'preflight@example.com',
    queuedAt: new Date(),
    messageDomain: from.domain,
  })
  return buildMessage(message, from, dkim)
}

/** The DNS checks of a reserved example domain: nothing there to read, said once per check. */
function reservedLines(from: MailFrom): CheckLine[] {
  const says = `MAIL_FROM is at ${from.domain}, a reserved example domain: no DNS to read; receivers refuse or bin its mail`
  const publish = "MAIL_FROM at the lab's own domain"
  return (['SPF', 'DKIM', 'DMARC', 'MX'] as const).map((check) => line(check, 'warn', says, { publish }))
}

/**
 * The deliverability preflight (issue 66): SPF and MX at the bounce domain, DKIM and DMARC at
 * From's, their alignment, and one-click unsubscribe in the message as built. The families ask
 * DNS at once; each answers for itself, so one resolver's silence costs only its own lines.
 */
export async function runPreflight(settings: PreflightSettings): Promise<CheckLine[]> {
  const { from, smtp, dkim } = settings.mail
  const raw = await builtInvitation(settings.context, from, dkim)
  const unsubscribe = checkUnsubscribe(raw, settings.context.siteUrl, dkim !== undefined)
  // A trial relay's sender: the start-up already warns of it (start-mail.ts), and DNS holds nothing.
  if (isReservedName(from.domain)) return [...reservedLines(from), ...unsubscribe]
  const dns = new DnsReader(settings.dnsServers)
  const use = { domain: from.domain, own: dkim, provider: settings.providerSelectors }
  const signsAtFrom = dkim !== undefined || settings.providerSelectors.length > 0
  const relay = { host: smtp.host, loopback: isLoopback(smtp.host) }
  const families = await Promise.all([
    checkSpf(dns, from.bounceDomain, relay),
    checkDkim(dns, use),
    checkDmarc(dns, {
      from: from.domain,
      dkim: signsAtFrom ? from.domain : undefined,
      spf: from.bounceDomain,
    }),
    checkMx(dns, from.bounceDomain),
  ])
  return [...families.flat(), ...unsubscribe]
}
