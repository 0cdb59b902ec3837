import type { WaitlistOutcome } from '../../contract/waitlist-outcome'

/** The query parameter the server's no-script form handler redirects with. */
export const NATIVE_RESULT_PARAM = 'waitlist'

const statuses = new Set(['submitted', 'already_registered', 'error'])

export function outcomeFromRedirect(location: Pick<Location, 'href'>) {
  const url = new URL(location.href)
  const status = url.searchParams.get(NATIVE_RESULT_PARAM)
  if (!status || !statuses.has(status)) return undefined
  url.searchParams.delete(NATIVE_RESULT_PARAM)
  const outcome = (
    status === 'error' ? { status, error: new Error('The no-script form submission failed') } : { status }
  ) as WaitlistOutcome
  return { outcome, cleanUrl: `${url.pathname}${url.search}${url.hash}` }
}
