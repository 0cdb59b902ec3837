/**
 * Addresses the browser's own `type="email"` check accepts and refuses; the database must agree
 * with it (tests/server/schema.test.ts), and the log mask must hide every one that has an `@`
 * (tests/server/log-mask.test.ts).
 */
export const ACCEPTED_EMAILS = [
  'a@b',
  'first.last+tag@example.co.uk',
  "o'brien@example.com",
  'x@xn--bcher-kva.example',
  `${'a'.repeat(64)}@example.com`,
  `${'a'.repeat(248)}@b.com`, // exactly 254 characters
  `x@${'d'.repeat(63)}.example`, // a 63-character label, the most a label may have
  "a!#$%&'*+/=?^_`{|}~-@example.org",
]

export const REFUSED_EMAILS = [
  'plain',
  '@example.com',
  'a@',
  'a b@example.com',
  'a"b@example.com',
  '<a>@example.com',
  'a@exa mple.com',
  'a@-example.com',
  'a@example-.com',
  'a@example..com',
  'a@example.com.',
  'a@.example.com',
  `x@${'d'.repeat(64)}.example`,
  `${'a'.repeat(249)}@b.com`, // 255 characters
  'a@b\tc.com',
  'ünï@example.com',
  'a@exämple.com',
  ' a@example.com',
  'a@example.com ',
  'a@example.com\n',
  `${'a'.repeat(250)}@b.co`,
]
