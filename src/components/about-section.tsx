import { siteConfig } from '../site-config'
import { WaitlistForm } from './waitlist-form'

export function AboutSection() {
  return (
    <section id="about" aria-labelledby="about-heading" className="py-16 sm:py-24">
      <p className="text-sm font-semibold uppercase tracking-widest text-slate-500">About</p>
      <h1
        id="about-heading"
        className="mt-3 max-w-3xl text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl"
      >
        {siteConfig.tagline}
      </h1>
      <p className="mt-6 max-w-2xl text-lg leading-8 text-slate-700">{siteConfig.pitch}</p>
      <p className="mt-8 text-base font-medium text-slate-900">Request access to the private beta.</p>
      <WaitlistForm />
    </section>
  )
}
