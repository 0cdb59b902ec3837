import { afterEach, describe, expect, it } from 'vitest'
import { CONFIRM_SIGNUPS_META } from '../../contract/waitlist-outcome'
import { announceOutcome } from './announce-outcome'
import { currentToasts, dismissToast } from './toast-store'

/** The page as the server serves it: the meta tag says whether signups are confirmed by mail. */
function servedWith(content: string) {
  const meta = document.createElement('meta')
  meta.name = CONFIRM_SIGNUPS_META
  meta.content = content
  document.head.append(meta)
}

afterEach(() => {
  for (const meta of document.head.querySelectorAll('meta')) meta.remove()
  for (const toast of currentToasts()) dismissToast(toast.id)
})

describe('the success toast', () => {
  it('asks to check the inbox when the server confirms signups', () => {
    servedWith('on')
    announceOutcome({ status: 'submitted' })
    expect(currentToasts().at(-1)).toMatchObject({
      title: 'Request submitted!',
      description: 'Check your inbox to confirm your address.',
      variant: 'default',
    })
  })

  it('keeps the specification’s words when it does not, or when the tag is missing', () => {
    for (const content of ['off', '__CONFIRM_SIGNUPS__', undefined]) {
      if (content !== undefined) servedWith(content)
      announceOutcome({ status: 'submitted' })
      expect(currentToasts().at(-1)).toMatchObject({
        title: 'Request submitted!',
        description: "We'll be in touch soon about beta access.",
      })
      for (const meta of document.head.querySelectorAll('meta')) meta.remove()
    }
  })

  it('leaves the duplicate’s words as they are with confirmation on', () => {
    servedWith('on')
    announceOutcome({ status: 'already_registered' })
    expect(currentToasts().at(-1)).toMatchObject({
      title: 'Already on the waitlist!',
      description: 'This email is already registered for beta access.',
    })
  })
})
