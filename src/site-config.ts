/**
 * Everything the page says about the lab, in one place.
 *
 * CHANGE ME: these are placeholder defaults. The specification leaves the lab's name, hiring
 * address ({email}) and job board open; replace them with the lab's own before launch.
 */
export interface SiteConfig {
  /** The lab's legal or public name, used in titles and structured data. */
  labName: string
  /** The product wordmark shown in the header, linking to '/'. */
  wordmark: string
  logo: { src: string; width: number; height: number; alt: string }
  tagline: string
  /** One paragraph: what the first product does. */
  pitch: string
  /** The hiring contact, shown as a mailto: link. CHANGE ME. */
  hiringEmail: string
  /** A hosted job board; opens in a new tab. CHANGE ME. */
  careersUrl: string
  /** The 'Join us' section's account of the team and its backing. CHANGE ME. */
  team: string
  backing: string
  hiringAreas: readonly string[]
  city: string
}

export const siteConfig: SiteConfig = {
  labName: 'Tessel Labs',
  wordmark: 'Tessel',
  logo: { src: '/logo.svg', width: 32, height: 32, alt: 'Tessel Labs logo' },
  tagline: 'Infrastructure for agent-centric computing',
  pitch:
    'Our first product teaches AI agents to invoke the right tool, keep context and finish long multi-turn ' +
    "tasks with higher accuracy and throughput, using your organisation's first-party data.",
  hiringEmail: 'careers@tessel-labs.example',
  careersUrl: 'https://jobs.ashbyhq.com/tessel-labs',
  team:
    'We are researchers and engineers from well-known technology companies and trading firms, ' +
    'who have shipped search, ads, payments and trading systems at scale.',
  backing: 'We are backed by a leading startup accelerator and have raised a seed round.',
  hiringAreas: ['research', 'engineering', 'operations', 'product'],
  city: 'San Francisco',
}
