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
  /** Search result and link preview text (about 150 characters). */
  description: string
  /** Browser UI colour (web manifest, theme-color), the logo's background. */
  themeColor: string
  /** The page's background in each colour scheme (src/styles.css --color-page), for theme-color. */
  pageColors: { light: string; dark: string }
  /** The 1200×630 link preview, made by scripts/make-images.ts. */
  ogImage: { src: `/${string}`; width: number; height: number; alt: string }
  /**
   * Publisher part of the URNs in /.well-known/ai-catalog.json (urn:air:<publisher>:…): the lab's
   * domain, letters, digits, dots and hyphens only. CHANGE ME with the domain.
   */
  publisherId: string
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
  description:
    'Tessel Labs builds infrastructure for agent-centric computing: AI agents that pick the right tool, ' +
    'keep context and finish long tasks. Request access to the private beta.',
  themeColor: '#0f172a',
  pageColors: { light: '#ffffff', dark: '#090d13' },
  ogImage: {
    src: '/og-image.png',
    width: 1200,
    height: 630,
    alt: 'Tessel Labs: Infrastructure for agent-centric computing',
  },
  publisherId: 'tessel-labs.example',
}
