import { AboutSection } from '../components/about-section'
import { JoinUsSection } from '../components/join-us-section'
import { SiteFooter } from '../components/site-footer'
import { SiteHeader } from '../components/site-header'

export function HomePage() {
  return (
    <div className="flex min-h-screen flex-col">
      <SiteHeader />
      <main className="mx-auto w-full max-w-5xl flex-1 px-6">
        <AboutSection />
        <JoinUsSection />
      </main>
      <SiteFooter />
    </div>
  )
}
