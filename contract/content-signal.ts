import type { SiteConfig } from './site-config.ts'

const yesNo = (allowed: boolean) => (allowed ? 'yes' : 'no')

/**
 * The lab's AI-use policy as a Content-Signal value (contentsignals.org): robots.txt's line, and the
 * header on the page's Markdown, as Cloudflare's Markdown for Agents sends it.
 */
export function contentSignal({ contentSignals }: SiteConfig): string {
  const { search, aiInput, aiTrain } = contentSignals
  return `search=${yesNo(search)}, ai-input=${yesNo(aiInput)}, ai-train=${yesNo(aiTrain)}`
}
