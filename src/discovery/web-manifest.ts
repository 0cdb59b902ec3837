import type { SiteConfig } from '../../contract/site-config'

/** The favicon set scripts/make-images.ts renders from the logo, listed once for head and manifest. */
export const icons = {
  svg: '/favicon.svg',
  ico: '/favicon.ico',
  appleTouch: '/apple-touch-icon.png',
  png192: '/icon-192.png',
  png512: '/icon-512.png',
} as const

/** site.webmanifest (https://www.w3.org/TR/appmanifest/). */
export function webManifest(config: SiteConfig): string {
  const manifest = {
    name: config.labName,
    short_name: config.wordmark,
    description: config.description,
    start_url: '/',
    scope: '/',
    display: 'browser',
    background_color: '#ffffff',
    theme_color: config.themeColor,
    icons: [
      { src: icons.png192, sizes: '192x192', type: 'image/png' },
      { src: icons.png512, sizes: '512x512', type: 'image/png' },
      { src: icons.svg, sizes: 'any', type: 'image/svg+xml' },
    ],
  }
  return `${JSON.stringify(manifest, null, 2)}\n`
}
