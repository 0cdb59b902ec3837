/**
 * Host names reserved for examples and tests (RFC 2606, RFC 6761): no lab's beta lives there and
 * no mail from there is trusted. The site config ships such a beta link (beta.tessel-labs.example)
 * so that a lab that forgot BETA_URL sends no invitation pointing nowhere.
 */

const RESERVED_NAMES = new Set(['example.com', 'example.net', 'example.org'])
/** Top-level names: the name itself and everything under it (`example`, `x.test`, `localhost`). */
const RESERVED_TOP_LEVEL = new Set(['example', 'test', 'invalid', 'localhost'])

/** True for a reserved name, in any letter case, with or without its final dot. */
export function isReservedName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  return RESERVED_NAMES.has(name) || RESERVED_TOP_LEVEL.has(name.slice(name.lastIndexOf('.') + 1))
}

/** The beta link's host is a reserved name: the placeholder, not the lab's beta. */
export function isPlaceholderLink(betaUrl: string): boolean {
  try {
    return isReservedName(new URL(betaUrl).hostname)
  } catch {
    return false // BETA_URL's own check refuses what is not a URL
  }
}

/** Why `invite` and the studio's invite queue nothing: one line, the same at both doors. */
export const placeholderRefusal = (betaUrl: string) =>
  `Nothing queued: the beta link ${betaUrl} is a placeholder (a reserved example name). ` +
  "Set BETA_URL to the beta's real address where the server runs, and restart it."

/** What a test send, a dry run or a preview says of the placeholder: they go on. */
export const placeholderNote = (betaUrl: string) =>
  `The beta link ${betaUrl} is a placeholder (a reserved example name): ` +
  "invite refuses to queue until BETA_URL is set to the beta's real address where the server runs."
