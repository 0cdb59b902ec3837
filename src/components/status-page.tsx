import type { ReactNode } from 'react'

/**
 * A page that only says what happened and leads home: the 404 page and the error page. The 404
 * page passes the site's header (logo and wordmark), so a visitor knows whose site this is.
 */
export function StatusPage({ heading, line, header }: { heading: string; line: string; header?: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      {header}
      <main className="flex flex-1 items-center justify-center px-6 pb-16">
        <div className="max-w-xl text-center">
          <span aria-hidden="true" className="mx-auto mb-6 block size-2 rounded-full bg-signal" />
          <h1 className="text-4xl font-semibold tracking-[-0.03em] text-balance text-ink sm:text-5xl">
            {heading}
          </h1>
          <p className="mt-4 text-lg text-soft sm:text-xl">{line}</p>
          <a
            href="/"
            className="mt-8 inline-block rounded-md font-medium text-ink underline decoration-accent decoration-2 underline-offset-4 hover:text-accent"
          >
            Return to Home
          </a>
        </div>
      </main>
    </div>
  )
}
