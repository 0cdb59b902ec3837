import { siteConfig } from '../site-config'

function listOf(words: readonly string[]): string {
  if (words.length < 2) return words.join('')
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

export function JoinUsSection() {
  const { team, backing, hiringAreas, hiringEmail, careersUrl } = siteConfig
  return (
    <section id="join-us" aria-labelledby="join-us-heading" className="border-t border-slate-200 py-16">
      <h2 id="join-us-heading" className="text-2xl font-semibold tracking-tight text-slate-900">
        Join us
      </h2>
      <div className="mt-4 max-w-2xl space-y-4 text-base leading-7 text-slate-700">
        <p>{team}</p>
        <p>{backing}</p>
        <p>We are hiring across {listOf(hiringAreas)}.</p>
        <p>
          Write to us at{' '}
          <a
            className="font-medium text-slate-900 underline underline-offset-4"
            href={`mailto:${hiringEmail}`}
          >
            {hiringEmail}
          </a>{' '}
          or see{' '}
          <a
            className="font-medium text-slate-900 underline underline-offset-4"
            href={careersUrl}
            target="_blank"
            rel="noopener noreferrer"
          >
            open roles on our careers page
          </a>
          .
        </p>
      </div>
    </section>
  )
}
