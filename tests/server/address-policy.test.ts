import { disposableEmailBlocklist } from 'disposable-email-domains-js'
import mailchecker from 'mailchecker'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConfigError, loadServerEnv } from '../../server/boot/env'
import { type AddressPolicy, addressPolicyOf } from '../../server/waitlist/address-policy/address-policy'
import { KEPT_MAILBOXES } from '../../server/waitlist/address-policy/list-corrections'
import { MailDomainCheck } from '../../server/waitlist/address-policy/mail-domain-check'
import { type LocalDns, startLocalDns } from '../support/local-dns'

// The relays the issue names, each forwarding to a real inbox: never refused by a list package.
const RELAYS = [
  'relay.firefox.com',
  'mozmail.com',
  'duck.com',
  'simplelogin.com',
  'simplelogin.co',
  'aleeas.com',
  'slmail.me',
  'addy.io',
  'anonaddy.com',
  'anonaddy.me',
  'privaterelay.appleid.com',
  'icloud.com',
]
// Long-standing throwaway services; the last two are missed by the first list.
const DISPOSABLE = [
  'mailinator.com',
  'guerrillamail.com',
  'yopmail.com',
  '10minutemail.com',
  'mailinator.co',
  'tempmail.com',
]

const defaults = () => addressPolicyOf(loadServerEnv({}))
const reason = async (policy: Pick<AddressPolicy, 'refusal'>, email: string) =>
  (await policy.refusal(email))?.reason

describe('the address policy by default: disposable services out, forwarding relays in', () => {
  it('refuses throwaway domains, in any letter case and under any subdomain', async () => {
    const policy = defaults()
    for (const domain of DISPOSABLE) {
      expect(await reason(policy, `someone@${domain}`), domain).toBe('disposable')
      expect(await reason(policy, `someone@${domain.toUpperCase()}`), domain).toBe('disposable')
      expect(await reason(policy, `someone@inbox.deep.${domain}`), domain).toBe('disposable')
    }
    expect(await policy.refusal('jane@mailinator.com')).toEqual({
      reason: 'disposable',
      domain: 'mailinator.com',
      message: 'Addresses at disposable e-mail services are not accepted',
      details: 'mailinator.com hands out throwaway addresses.',
      hint: 'Use an address you keep; forwarding addresses (Firefox Relay, DuckDuckGo, SimpleLogin, addy.io, Hide My Email) are welcome.',
    })
    console.log(`the disposable list names ${disposableEmailBlocklist().length} domains`)
  })

  it('accepts every forwarding relay and their subdomains, and ordinary addresses', async () => {
    const policy = defaults()
    // mailchecker, the second list, names most relays and these mailboxes: the corrections win.
    const listed = mailchecker.blacklist()
    expect(RELAYS.filter((domain) => listed.has(domain)).length).toBeGreaterThan(5)
    expect(KEPT_MAILBOXES.every((domain) => listed.has(domain))).toBe(true)
    for (const domain of [...RELAYS, ...KEPT_MAILBOXES, 'example.com', 'gmail.com', 'lab.example.ac.uk']) {
      expect(await reason(policy, `alias.x1y2@${domain}`), domain).toBeUndefined()
      expect(await reason(policy, `alias@user42.${domain}`), domain).toBeUndefined()
    }
  })

  it('accepts the relays even from a list package that names them (mailchecker does)', async () => {
    const listed = new Set(disposableEmailBlocklist())
    console.log(`relays the package names today: ${RELAYS.filter((d) => listed.has(d)).join(', ') || 'none'}`)
    vi.resetModules()
    vi.doMock('disposable-email-domains-js', () => ({
      disposableEmailBlocklist: () => ['relay.firefox.com', 'duck.com', 'simplelogin.com', 'mailinator.com'],
    }))
    try {
      const fresh = await import('../../server/waitlist/address-policy/address-policy')
      const policy = new fresh.AddressPolicy({ blockDisposable: true, allowed: [], blocked: [] })
      for (const domain of ['relay.firefox.com', 'duck.com', 'simplelogin.com'])
        expect(await reason(policy, `me@${domain}`), domain).toBeUndefined()
      expect(await reason(policy, 'me@mailinator.com')).toBe('disposable')
      // Only the lab's own word refuses a relay.
      const lab = new fresh.AddressPolicy({ blockDisposable: true, allowed: [], blocked: ['duck.com'] })
      expect(await reason(lab, 'me@duck.com')).toBe('blocked')
    } finally {
      vi.doUnmock('disposable-email-domains-js')
      vi.resetModules()
    }
  })

  it("leaves what is not an address to the database's own checks", async () => {
    const policy = defaults()
    for (const value of [42, null, undefined, { email: 'a@mailinator.com' }, 'no-at-sign', ''])
      expect(await policy.refusal(value)).toBeUndefined()
  })
})

describe('the lab decides: BLOCK_DISPOSABLE, ALLOWED_DOMAINS, BLOCKED_DOMAINS', () => {
  it('BLOCK_DISPOSABLE=false accepts throwaway domains; BLOCKED_DOMAINS still refuses its own', async () => {
    const env = loadServerEnv({ BLOCK_DISPOSABLE: 'false', BLOCKED_DOMAINS: 'Competitor.Example, spam.test' })
    const policy = addressPolicyOf(env)
    expect(await reason(policy, 'x@mailinator.com')).toBeUndefined()
    expect(await reason(policy, 'x@competitor.example')).toBe('blocked')
    expect(await reason(policy, 'x@eu.competitor.example')).toBe('blocked')
    expect(await policy.refusal('x@spam.test')).toMatchObject({
      message: 'Addresses at this domain are not accepted',
      details: "spam.test is on this waitlist's block list.",
      hint: 'Use another address.',
    })
  })

  it('ALLOWED_DOMAINS lets one domain through a list, the nearest name deciding', async () => {
    const env = loadServerEnv({ ALLOWED_DOMAINS: 'team.mailinator.com', BLOCKED_DOMAINS: 'example.org' })
    const policy = addressPolicyOf(env)
    expect(await reason(policy, 'x@team.mailinator.com')).toBeUndefined()
    expect(await reason(policy, 'x@a.team.mailinator.com')).toBeUndefined()
    expect(await reason(policy, 'x@mailinator.com')).toBe('disposable')
    expect(await reason(policy, 'x@other.mailinator.com')).toBe('disposable')
    expect(await reason(policy, 'x@sub.example.org')).toBe('blocked')
  })

  it('names every bad list at start-up', () => {
    const load = (env: Record<string, string>) => () => loadServerEnv(env)
    expect(load({ BLOCKED_DOMAINS: 'ok.example, @bad.example, *.wild.example' })).toThrow(
      /"@bad.example" is not a domain[\s\S]*"\*.wild.example" is not a domain/,
    )
    expect(load({ ALLOWED_DOMAINS: 'both.example', BLOCKED_DOMAINS: 'both.example' })).toThrow(
      /ALLOWED_DOMAINS: names a domain BLOCKED_DOMAINS names too/,
    )
    expect(load({ DNS_SERVERS: 'dns.example.com' })).toThrow(ConfigError)
    expect(load({ BLOCK_DISPOSABLE: 'maybe' })).toThrow(/BLOCK_DISPOSABLE/)
    const env = loadServerEnv({ DNS_SERVERS: '127.0.0.1:5353, [::1]:53' })
    expect([env.BLOCK_DISPOSABLE, env.CHECK_MAIL_DOMAINS, env.DNS_SERVERS]).toEqual([
      true,
      false,
      ['127.0.0.1:5353', '[::1]:53'],
    ])
  })
})

describe('CHECK_MAIL_DOMAINS against a local DNS server', () => {
  let dns: LocalDns
  beforeAll(async () => {
    dns = await startLocalDns({
      'mx.test': { mx: ['mail.mx.test'] },
      'a-only.test': { a: ['192.0.2.10'] },
      'null-mx.test': { nullMx: true },
      'empty.test': {},
      'gone.test': { rcode: 'NXDOMAIN' },
      'broken.test': { rcode: 'SERVFAIL' },
      'slow.test': { silent: true },
    })
  })
  afterAll(async () => {
    await dns?.close()
  })

  const check = (options: { maxEntries?: number } = {}) =>
    new MailDomainCheck({ servers: [dns.server], budgetMs: 400, ...options })

  it('accepts an MX or an A record; refuses a null MX, no records, no such name; a failing resolver is unknown', async () => {
    const mail = check()
    const verdicts = Object.fromEntries(
      await Promise.all(
        ['mx.test', 'a-only.test', 'null-mx.test', 'empty.test', 'gone.test', 'broken.test', 'slow.test'].map(
          async (domain) => [domain, await mail.verdict(domain)],
        ),
      ),
    )
    expect(verdicts).toEqual({
      'mx.test': 'receives',
      'a-only.test': 'receives',
      'null-mx.test': 'null-mx',
      'empty.test': 'no-host',
      'gone.test': 'no-host',
      'broken.test': 'unknown',
      'slow.test': 'unknown',
    })
  })

  it('asks once per domain while the verdict stands, and forgets the oldest past its bound', async () => {
    const mail = check({ maxEntries: 3 })
    const domains = ['one.test', 'two.test', 'three.test', 'four.test']
    await Promise.all([mail.verdict('one.test'), mail.verdict('one.test'), mail.verdict('one.test')])
    const once = dns.asked('one.test')
    expect(once).toBe(3) // MX, A and AAAA, once, for three callers at once
    await mail.verdict('one.test')
    expect(dns.asked('one.test')).toBe(once)
    for (const domain of domains) await mail.verdict(domain)
    await mail.verdict('one.test') // pushed out by four.test: asked again
    expect(dns.asked('one.test')).toBe(2 * once)
  })

  it('the policy refuses what cannot receive mail with its reason, and accepts when DNS fails or is slow', async () => {
    const policy = addressPolicyOf(loadServerEnv({ CHECK_MAIL_DOMAINS: 'true', DNS_SERVERS: dns.server }))
    expect(await policy.refusal('x@null-mx.test')).toMatchObject({
      reason: 'no-mail',
      message: 'This address cannot receive mail',
      details: 'null-mx.test says it accepts no mail (a null MX record).',
      hint: 'Check the address for a typo.',
    })
    expect(await policy.refusal('x@gone.test')).toMatchObject({
      details: 'gone.test has no mail server (no MX, A or AAAA record).',
    })
    for (const email of ['x@mx.test', 'x@a-only.test', 'x@broken.test', 'x@slow.test'])
      expect(await policy.refusal(email), email).toBeUndefined()
    // An address the grammar refuses is the database's to refuse: DNS is never asked about it.
    expect(await policy.refusal('x@bad_name.test')).toBeUndefined()
    expect(dns.asked('bad_name.test')).toBe(0)
  })
})
