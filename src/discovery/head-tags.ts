import { homeLinkRelations } from '../../contract/agent-links.ts'
import { AI_CATALOG_TYPE } from '../../contract/agent-media-types.ts'
import type { SiteConfig } from '../../contract/site-config'
import { absoluteUrl } from '../../contract/site-url.ts'
import { icons } from './web-manifest.ts'

/** One element for vite-prerender-plugin's `head.elements`. */
export interface HeadElement {
  type: 'meta' | 'link' | 'script'
  props: Record<string, string>
}

const meta = (props: Record<string, string>): HeadElement => ({ type: 'meta', props })
const link = (props: Record<string, string>): HeadElement => ({ type: 'link', props })

/** JSON inside <script> must not be able to close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c')
}

/** schema.org Organization with the hiring contact and careers page (https://schema.org/Organization). */
export function organizationJsonLd(config: SiteConfig): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    name: config.labName,
    alternateName: config.wordmark,
    url: absoluteUrl('/'),
    logo: absoluteUrl(icons.png512),
    description: config.description,
    address: { '@type': 'PostalAddress', addressLocality: config.city },
    contactPoint: {
      '@type': 'ContactPoint',
      contactType: 'recruiting',
      email: config.hiringEmail,
      url: config.careersUrl,
    },
  }
}

/** Tags every screen carries: icons, manifest, theme colour. */
function commonElements(config: SiteConfig): HeadElement[] {
  return [
    // The browser's bar takes the page's own background in each colour scheme.
    meta({ name: 'theme-color', media: '(prefers-color-scheme: light)', content: config.pageColors.light }),
    meta({ name: 'theme-color', media: '(prefers-color-scheme: dark)', content: config.pageColors.dark }),
    link({ rel: 'icon', href: icons.ico, sizes: '32x32' }),
    link({ rel: 'icon', href: icons.svg, type: 'image/svg+xml' }),
    link({ rel: 'apple-touch-icon', href: icons.appleTouch }),
    link({ rel: 'manifest', href: '/site.webmanifest' }),
  ]
}

/** The home page's description, canonical URL, link previews, structured data and agent catalog. */
export function homeHeadElements(config: SiteConfig, title: string): HeadElement[] {
  const image = absoluteUrl(config.ogImage.src)
  return [
    meta({ name: 'description', content: config.description }),
    link({ rel: 'canonical', href: absoluteUrl('/') }),
    ...commonElements(config),
    link({ rel: 'ai-catalog', href: '/.well-known/ai-catalog.json', type: AI_CATALOG_TYPE }),
    // llms.txt v2: the guide that covers this page, and this page in Markdown.
    ...homeLinkRelations.map((relation) => link({ ...relation })),
    meta({ property: 'og:type', content: 'website' }),
    meta({ property: 'og:site_name', content: config.labName }),
    meta({ property: 'og:title', content: title }),
    meta({ property: 'og:description', content: config.description }),
    meta({ property: 'og:url', content: absoluteUrl('/') }),
    meta({ property: 'og:locale', content: 'en_US' }),
    meta({ property: 'og:image', content: image }),
    meta({ property: 'og:image:type', content: 'image/png' }),
    meta({ property: 'og:image:width', content: String(config.ogImage.width) }),
    meta({ property: 'og:image:height', content: String(config.ogImage.height) }),
    meta({ property: 'og:image:alt', content: config.ogImage.alt }),
    meta({ name: 'twitter:card', content: 'summary_large_image' }),
    meta({ name: 'twitter:title', content: title }),
    meta({ name: 'twitter:description', content: config.description }),
    meta({ name: 'twitter:image', content: image }),
    meta({ name: 'twitter:image:alt', content: config.ogImage.alt }),
    {
      type: 'script',
      props: { type: 'application/ld+json', children: scriptJson(organizationJsonLd(config)) },
    },
  ]
}

/** The 404 page: found by people, never indexed. */
export function notFoundHeadElements(config: SiteConfig): HeadElement[] {
  return [
    meta({ name: 'robots', content: 'noindex' }),
    meta({ name: 'description', content: config.description }),
    ...commonElements(config),
  ]
}
