import { siteConfig } from '../../contract/site-config'

export function SiteHeader() {
  const { logo, wordmark, careersUrl } = siteConfig
  return (
    <header className="mx-auto flex w-full max-w-6xl items-center justify-between px-6 py-6">
      <a
        href="/"
        className="flex items-center gap-3 rounded-md text-lg font-semibold tracking-tight text-ink"
      >
        {/* The logo's dark tile gets a hairline edge on the dark background. */}
        <img
          src={logo.src}
          width={logo.width}
          height={logo.height}
          alt={logo.alt}
          className="rounded-[7px] dark:ring-1 dark:ring-white/20"
        />
        <span>{wordmark}</span>
      </a>
      <a
        href={careersUrl}
        target="_blank"
        rel="noopener noreferrer"
        className="rounded-full border border-line px-4 py-2 text-sm font-medium text-ink hover:border-accent"
      >
        Careers
      </a>
    </header>
  )
}
