import { siteConfig } from '../site-config'

export function SiteFooter() {
  return (
    <footer className="mx-auto flex w-full max-w-5xl items-center justify-between border-t border-slate-200 px-6 py-6 text-sm text-slate-600">
      <span>{siteConfig.city}</span>
      {/* Static by design (spec section 2): no status data drives this. */}
      <span className="flex items-center gap-2">
        <span
          data-testid="status-dot"
          aria-hidden="true"
          className="inline-block size-2 rounded-full bg-green-500"
        />
        All Systems Operational
      </span>
    </footer>
  )
}
