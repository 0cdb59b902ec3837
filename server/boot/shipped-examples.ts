import { mailWords, siteConfig } from '../../contract/site-config'
import { isPlaceholderLink, isReservedName } from '../mail/messages/reserved-names'

/**
 * The lab's words (contract/site-config.ts) that are still the examples the repository ships: a
 * value at a reserved example name (RFC 2606: `*.example`, `example.com`, `*.test`…) is one, by the
 * same rule that keeps invitations from leaving with the placeholder beta link (ADR 077). A value
 * the lab changed to its own is never one; a lab's real value is never at a reserved name.
 */

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname
  } catch {
    return ''
  }
}

/** Each shipped example still in place, named by its key and what it is; the beta link as the server sends it. */
export function shippedExamples(betaUrl: string): string[] {
  const found: string[] = []
  const careersDomain = siteConfig.hiringEmail.slice(siteConfig.hiringEmail.lastIndexOf('@') + 1)
  // The address is written without its local part: the log masks any address it is given.
  if (isReservedName(careersDomain)) found.push(`hiringEmail (the careers address, at ${careersDomain})`)
  if (isReservedName(hostOf(siteConfig.careersUrl)))
    found.push(`careersUrl (the job board, ${siteConfig.careersUrl})`)
  if (isReservedName(siteConfig.publisherId))
    found.push(`publisherId (the lab's domain, ${siteConfig.publisherId})`)
  if (isPlaceholderLink(betaUrl))
    found.push(
      betaUrl === mailWords.betaUrl
        ? `mailWords.betaUrl (the beta link, ${betaUrl}; or set BETA_URL)`
        : `BETA_URL (the beta link, ${betaUrl})`,
    )
  return found
}

/** The one start-up line naming them all, or undefined when the lab has replaced every one. */
export function shippedExamplesLine(betaUrl: string): string | undefined {
  const found = shippedExamples(betaUrl)
  if (found.length === 0) return undefined
  const beta = isPlaceholderLink(betaUrl) ? '; invite refuses to queue while the beta link is one' : ''
  return `Still the shipped examples in contract/site-config.ts, to change before launch: ${found.join(', ')}${beta}.`
}
