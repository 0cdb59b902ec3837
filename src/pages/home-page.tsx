import { AboutSection } from '../sections/about-section'
import { JoinUsSection } from '../sections/join-us-section'
import { SiteFooter } from '../sections/site-footer'
import { SiteHeader } from '../sections/site-header'

export function HomePage() {
  return (
    <div className="relative isolate flex min-h-screen flex-col">
      <div
        aria-hidden="true"
        className="tile-motif pointer-events-none absolute inset-x-0 top-0 -z-10 h-[44rem]"
      />
      <SiteHeader />
      <main className="mx-auto w-full max-w-6xl flex-1 px-6">
        <AboutSection />
        <JoinUsSection />
      </main>
      <SiteFooter />
    </div>
  )
}
