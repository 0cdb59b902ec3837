/**
 * Forwarding services: each address forwards to a real inbox its owner keeps, and can be turned off
 * by them, which is what privacy-minded people (this lab's audience) sign up with. They are not
 * throwaway addresses, so no list package may refuse them (ADR 060); the lab's own BLOCKED_DOMAINS
 * still can. Subdomains are covered (SimpleLogin and addy.io give users their own).
 */
export const FORWARDING_RELAYS: readonly string[] = [
  // Firefox Relay
  'relay.firefox.com',
  'mozmail.com',
  // DuckDuckGo Email Protection
  'duck.com',
  // SimpleLogin (Proton)
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'simplelogin.io',
  'aleeas.com',
  'slmail.me',
  'slmails.com',
  'silomails.com',
  '8alias.com',
  '8shield.net',
  'dralias.com',
  // addy.io (formerly AnonAddy)
  'addy.io',
  'anonaddy.com',
  'anonaddy.me',
  // Apple's Hide My Email (iCloud+), and iCloud Mail itself
  'privaterelay.appleid.com',
  'icloud.com',
  // Proton Pass aliases
  'passinbox.com',
  'passmail.net',
  'passmail.com',
]
