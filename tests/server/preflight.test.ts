import { authenticate } from 'mailauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { type LocalDns, startLocalDns, type Zone } from '../support/local-dns'
import { dkimKeyPair, domainInPlace, resolverAt } from '../support/mail-dns'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'

/**
 * `waitlist preflight` and the server's own DKIM signature (issue 66), through the running server,
 * a DNS server of the test's own (DNS_SERVERS) and a real SMTP server: a domain with everything in
 * place passes, each broken record fails naming its check, and the invitation as sent passes DKIM,
 * SPF and DMARC as a receiver (mailauth) reads it against the same DNS. One server for the file;
 * the records change between checks.
 */
const DOMAIN = 'tessel-labs.org'
const SELECTOR = 's2026'
const key = dkimKeyPair()
const zones: Record<string, Zone> = {}
const inPlace = domainInPlace(DOMAIN, SELECTOR, key.publicKey)

let dns: LocalDns
let mail: MailTestServer

beforeAll(async () => {
  Object.assign(zones, inPlace)
  dns = await startLocalDns(zones)
  mail = await startMailTestServer({
    MAIL_FROM: `Tessel Labs <beta@${DOMAIN}>`,
    MAIL_PER_MINUTE: '0',
    DNS_SERVERS: dns.server,
    DKIM_SELECTOR: SELECTOR,
    DKIM_PRIVATE_KEY: key.privateKey,
  })
})

afterAll(async () => {
  await mail?.close()
  await dns?.close()
})

const preflight = () => runCli(mail.server.env, 'preflight')

/** The records in place, with `changes` on top (undefined removes a name). */
function publish(changes: Record<string, Zone | undefined>): void {
  for (const name of Object.keys(zones)) delete zones[name]
  Object.assign(zones, inPlace)
  for (const [name, zone] of Object.entries(changes)) {
    if (zone) zones[name] = zone
    else delete zones[name]
  }
}

describe('waitlist preflight', () => {
  it('passes a domain with everything in place, one line per check', async () => {
    publish({})
    const result = await preflight()
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).not.toMatch(/^FAIL/m)
    expect(result.stdout).toMatch(/^pass +SPF: one record, \d+ of 10 lookups/m)
    expect(result.stdout).toContain(
      `pass   DKIM: ${SELECTOR}._domainkey.${DOMAIN} publishes the key the server signs with`,
    )
    expect(result.stdout).toMatch(/^pass +DMARC: p=reject/m)
    expect(result.stdout).toMatch(
      /^pass +DMARC alignment: From tessel-labs.org aligns with DKIM d=tessel-labs.org \(strict\)/m,
    )
    expect(result.stdout).toMatch(/^pass +MX: tessel-labs.org receives mail/m)
    expect(result.stdout).toMatch(/^pass +one-click unsubscribe: both headers, signed/m)
    expect(result.stdout).toContain('The preflight passes')
  })

  it('sends an invitation that passes DKIM, SPF and DMARC as the receiver reads it, the unsubscribe headers signed', async () => {
    publish({})
    const email = 'ada.receiver@example.com'
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    const sent = await runCli(mail.server.env, 'invite', '--next', '1')
    expect(sent.stderr).toBe('')
    expect(sent.code).toBe(0)
    await mail.sink.waitFor(() => mail.sink.countFor(email) >= 1, `the invitation to ${email}`)
    const raw = mail.sink.received.find((m) => m.to.includes(email))?.raw ?? Buffer.alloc(0)
    const result = await authenticate(raw, {
      ip: '127.0.0.1',
      helo: 'localhost',
      sender: `beta@${DOMAIN}`,
      mta: 'mx.example.com',
      resolver: resolverAt(dns.server),
      disableArc: true,
      disableBimi: true,
    })
    const [signature] = result.dkim.results
    expect(signature?.status.result).toBe('pass')
    expect(signature?.signingDomain).toBe(DOMAIN)
    expect(result.spf.status.result).toBe('pass')
    expect(result.dmarc.status.result).toBe('pass')
    const signed = /^DKIM-Signature:[\s\S]*?\bh=([^;]+);/m
      .exec(raw.toString('latin1'))?.[1]
      ?.replace(/\s+/g, '')
    expect(signed?.toLowerCase().split(':')).toEqual(
      expect.arrayContaining([
        'from',
        'subject',
        'date',
        'message-id',
        'list-unsubscribe',
        'list-unsubscribe-post',
      ]),
    )
  })

  it('fails on a missing DMARC record, naming DMARC and what to publish', async () => {
    publish({ [`_dmarc.${DOMAIN}`]: undefined })
    const result = await preflight()
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^FAIL +DMARC: no DMARC record at _dmarc.tessel-labs.org/m)
    expect(result.stdout).toContain(`publish: TXT _dmarc.${DOMAIN} "v=DMARC1; p=none;`)
  })

  it('fails on an SPF record needing 11 DNS lookups', async () => {
    const includes = Array.from({ length: 11 }, (_, n) => `spf${n}.${DOMAIN}`)
    const each = Object.fromEntries(includes.map((name) => [name, { txt: ['v=spf1 ip4:192.0.2.1 -all'] }]))
    const spf = `v=spf1 ${includes.map((name) => `include:${name}`).join(' ')} ~all`
    publish({ ...each, [DOMAIN]: { mx: [`mx.${DOMAIN}`], txt: [spf] } })
    const result = await preflight()
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^FAIL +SPF: needs 11 DNS lookups, past the 10 RFC 7208 §4.6.4 allows/m)
  })

  it('fails on a DKIM record whose key is not the signing key, and says which record to publish', async () => {
    publish({
      [`${SELECTOR}._domainkey.${DOMAIN}`]: { txt: [`v=DKIM1; k=rsa; p=${dkimKeyPair().publicKey}`] },
    })
    const result = await preflight()
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^FAIL +DKIM: the key at s2026._domainkey.tessel-labs.org is not the key the server signs with/m,
    )
    expect(result.stdout).toContain(`p=${key.publicKey}"`)
  })

  it('says "could not check" when the resolver does not answer, and does not pass', async () => {
    publish({ [`_dmarc.${DOMAIN}`]: { silent: true } })
    const result = await preflight()
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^could not check +DMARC: no answer for _dmarc.tessel-labs.org/m)
  })
})
