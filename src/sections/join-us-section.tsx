import { siteConfig } from '../../contract/site-config'

function listOf(words: readonly string[]): string {
  if (words.length < 2) return words.join('')
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

const LINK =
  'font-medium text-ink underline decoration-accent decoration-2 underline-offset-4 hover:text-accent'

export function JoinUsSection() {
  const { team, backing, hiringAreas, hiringEmail, careersUrl } = siteConfig
  return (
    <section
      id="join-us"
      aria-labelledby="join-us-heading"
      className="grid gap-6 border-t border-line py-20 sm:py-24 lg:grid-cols-[minmax(0,1fr)_42rem] lg:gap-16 lg:py-28"
    >
      <h2 id="join-us-heading" className="text-3xl font-semibold tracking-[-0.025em] text-ink sm:text-4xl">
        Join us
      </h2>
      <div className="max-w-2xl space-y-5 text-base leading-7 text-pretty text-soft sm:text-lg sm:leading-8">
        <p>{team}</p>
        <p>{backing}</p>
        <p>We are hiring across {listOf(hiringAreas)}.</p>
        <p>
          Write to us at{' '}
          <a className={`${LINK} break-all sm:break-normal`} href={`mailto:${hiringEmail}`}>
            {hiringEmail}
          </a>{' '}
          or see{' '}
          <a className={LINK} href={careersUrl} target="_blank" rel="noopener noreferrer">
            open roles on our careers page
          </a>
          .
        </p>
      </div>
    </section>
  )
}
