import { describe, expect, it } from 'vitest'
import { outcomeMessageFor, outcomeMessages, outcomeOfInsert } from './waitlist-outcome'

describe('outcomeOfInsert', () => {
  it('treats no error as submitted', () => {
    expect(outcomeOfInsert(null)).toEqual({ status: 'submitted' })
  })

  it('recognises a duplicate by its code 23505', () => {
    expect(outcomeOfInsert({ code: '23505', message: 'anything' }).status).toBe('already_registered')
  })

  it('recognises a duplicate by its message alone', () => {
    const error = { message: 'duplicate key value violates unique constraint "waitlist_email_key"' }
    expect(outcomeOfInsert(error).status).toBe('already_registered')
  })

  it('treats every other failure as an error and keeps it for the log', () => {
    const error = { code: '42501', message: 'permission denied for table waitlist' }
    expect(outcomeOfInsert(error)).toEqual({ status: 'error', error })
    expect(outcomeOfInsert({ message: 'TypeError: fetch failed' }).status).toBe('error')
    expect(outcomeOfInsert({ code: '', message: '' }).status).toBe('error')
  })
})

describe('outcomeMessages', () => {
  it('uses the specification words', () => {
    expect(outcomeMessages.submitted).toEqual({
      title: 'Request submitted!',
      description: "We'll be in touch soon about beta access.",
      variant: 'default',
    })
    expect(outcomeMessages.already_registered).toEqual({
      title: 'Already on the waitlist!',
      description: 'This email is already registered for beta access.',
      variant: 'destructive',
    })
    expect(outcomeMessages.error).toEqual({
      title: 'Error',
      description: 'There was an issue submitting your request. Please try again.',
      variant: 'destructive',
    })
  })
})

describe('outcomeMessageFor', () => {
  it('says to check the inbox on success with confirmation on, and the specification’s words otherwise', () => {
    expect(outcomeMessageFor('submitted', true)).toEqual({
      title: 'Request submitted!',
      description: 'Check your inbox to confirm your address.',
      variant: 'default',
    })
    expect(outcomeMessageFor('submitted', false)).toEqual(outcomeMessages.submitted)
    for (const status of ['already_registered', 'error'] as const)
      for (const confirm of [true, false])
        expect(outcomeMessageFor(status, confirm)).toEqual(outcomeMessages[status])
  })
})
