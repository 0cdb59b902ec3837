import { siteConfig } from '../../contract/site-config'

export function SiteFooter() {
  return (
    // The rule sits inside the padding, so it starts and ends with the content above it.
    <footer className="mx-auto w-full max-w-6xl px-6">
      <div className="flex items-center justify-between gap-4 border-t border-line py-8 text-sm text-soft">
        <span>{siteConfig.city}</span>
        {/* Static by design: no status data drives this, so it cannot go stale or fail. */}
        <span className="flex items-center gap-2">
          <span
            data-testid="status-dot"
            aria-hidden="true"
            className="inline-block size-2 rounded-full bg-green-500"
          />
          {siteConfig.statusLine}
        </span>
      </div>
    </footer>
  )
}
