import { generateKeyPairSync } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { networkInterfaces } from 'node:os'
import type { Zone } from './local-dns'

/** This host's own addresses as SPF names them: a relay on loopback sends from them. */
function hostMechanisms(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((address) => !address.internal && !address.address.startsWith('fe80:'))
    .map((address) => `${address.family === 'IPv6' ? 'ip6' : 'ip4'}:${address.address}`)
}

/** An RSA key pair for DKIM: the PEM the server signs with, and the `p=` its record publishes. */
export function dkimKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  }
}

/**
 * The records of a sending domain with everything in place: SPF naming this host (where the test's
 * relay is) and loopback (the address the receiving side reads the message from), the DKIM key at `selector`, DMARC at p=reject with strict
 * DKIM alignment, and an MX.
 */
export function domainInPlace(domain: string, selector: string, publicKey: string): Record<string, Zone> {
  return {
    [domain]: { mx: [`mx.${domain}`], txt: [`v=spf1 ip4:127.0.0.1 ${hostMechanisms().join(' ')} mx ~all`] },
    [`${selector}._domainkey.${domain}`]: { txt: [`v=DKIM1; k=rsa; p=${publicKey}`] },
    [`_dmarc.${domain}`]: { txt: ['v=DMARC1; p=reject; adkim=s; aspf=r'] },
  }
}

/**
 * A sender the preflight holds: the bounce domain's SPF and MX in place, From's domain with DMARC
 * alone, and no DKIM key in use, so From aligns with neither (DMARC alignment fails).
 */
export function unalignedSender(fromDomain: string, bounceDomain: string): Record<string, Zone> {
  const bounce = domainInPlace(bounceDomain, 'unused', '')
  const from = domainInPlace(fromDomain, 'unused', '')
  return {
    [bounceDomain]: bounce[bounceDomain] ?? {},
    [`_dmarc.${fromDomain}`]: from[`_dmarc.${fromDomain}`] ?? {},
  }
}

/** As mailauth's authenticate() asks DNS (`resolve(name, type)`), from the test's DNS server only. */
export function resolverAt(server: string): (name: string, type: string) => Promise<unknown> {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 })
  resolver.setServers([server])
  return (name, type) => resolver.resolve(name, type as 'TXT')
}
