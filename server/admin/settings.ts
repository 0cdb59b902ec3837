/**
 * The installation's settings the owner reads or changes (ADR 113): the API keys and where each
 * comes from, the mail links' seal keys, the consent words' versions, and the erased addresses'
 * hashes (counted, or one lifted).
 */
export { type ApiKeys, keySourcesOf, loadApiKeys } from '../auth/api-keys'
export { linkKeys } from '../mail/messages/link-seals'
export { listWords } from '../waitlist/consent/consent-record'
export { suppressedCounts, unsuppress, writeSuppressionKey } from '../waitlist/consent/suppression'
