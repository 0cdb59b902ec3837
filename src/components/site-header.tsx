import { siteConfig } from '../site-config'

export function SiteHeader() {
  const { logo, wordmark, careersUrl } = siteConfig
  return (
    <header className="mx-auto flex w-full max-w-5xl items-center justify-between px-6 py-6">
      <a href="/" className="flex items-center gap-3 text-lg font-semibold tracking-tight text-slate-900">
        <img src={logo.src} width={logo.width} height={logo.height} alt={logo.alt} />
        <span>{wordmark}</span>
      </a>
      <a
        href={careersUrl}
        target="_blank"
        rel="noopener noreferrer"
        className="rounded-md px-3 py-2 text-sm font-medium text-slate-700 underline-offset-4 hover:underline"
      >
        Careers
      </a>
    </header>
  )
}
