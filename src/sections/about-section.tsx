import { siteConfig } from '../../contract/site-config'
import { FORM_ISLAND_ID, FormIsland } from '../islands/form-island'
import { AgentGraph } from './agent-graph'
import { Headline } from './headline'

export function AboutSection() {
  return (
    <section
      id="about"
      aria-labelledby="about-heading"
      className="grid items-center gap-12 pt-12 pb-20 sm:pt-20 sm:pb-28 lg:grid-cols-[minmax(0,1fr)_26rem] lg:gap-16 lg:pt-24 lg:pb-36"
    >
      <div className="max-w-2xl">
        <p className="inline-flex items-center gap-2 rounded-full border border-line bg-panel px-3 py-1 text-sm font-medium text-soft">
          <span aria-hidden="true" className="size-1.5 rounded-full bg-signal" />
          About
        </p>
        <h1
          id="about-heading"
          className="mt-6 text-[clamp(2.25rem,11vw,3.75rem)] leading-[1.04] font-semibold tracking-[-0.03em] break-words text-balance text-ink lg:text-[4.25rem]"
        >
          <Headline text={siteConfig.tagline} />
        </h1>
        <p className="mt-6 max-w-xl text-base leading-7 text-pretty text-soft sm:text-lg sm:leading-8">
          {siteConfig.pitch}
        </p>
        <p className="mt-10 text-base font-medium text-ink">Request access to the private beta.</p>
        {/* The one part of the page the browser hydrates (src/hydrate.tsx): the rest stays static HTML. */}
        <div id={FORM_ISLAND_ID} className="contents">
          <FormIsland />
        </div>
      </div>
      <AgentGraph />
    </section>
  )
}
