import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { WaitlistOutcome } from '../../contract/waitlist-outcome'

const submitWaitlist = vi.fn<(email: string) => Promise<WaitlistOutcome>>()
vi.mock('../lib/submit-waitlist', () => ({ submitWaitlist: (email: string) => submitWaitlist(email) }))
vi.mock('../lib/load-supabase', () => ({ loadSupabase: () => Promise.resolve({}) }))

const { WaitlistForm } = await import('./waitlist-form')
const { currentToasts, dismissToast } = await import('../lib/toast-store')

function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

function lastToast() {
  return currentToasts().at(-1)
}

beforeEach(() => {
  submitWaitlist.mockReset()
  for (const toast of currentToasts()) dismissToast(toast.id)
})

describe('WaitlistForm', () => {
  it('starts idle with the specified input and button', () => {
    render(<WaitlistForm />)
    const input = screen.getByPlaceholderText('Enter your email')
    expect(input).toHaveProperty('type', 'email')
    expect(input).toHaveProperty('required', true)
    expect(screen.getByRole('button', { name: 'Request Access' })).toHaveProperty('disabled', false)
  })

  it('ignores a submit with an empty value', async () => {
    render(<WaitlistForm />)
    const form = screen.getByRole('button', { name: 'Request Access' }).closest('form')
    await act(async () => form?.requestSubmit())
    expect(submitWaitlist).not.toHaveBeenCalled()
    expect(currentToasts()).toHaveLength(0)
  })

  it('disables input and button and reads Submitting... while the request runs, then clears on success', async () => {
    const pending = deferred<WaitlistOutcome>()
    submitWaitlist.mockReturnValue(pending.promise)
    render(<WaitlistForm />)
    const input = screen.getByPlaceholderText('Enter your email')
    await userEvent.type(input, 'ada@example.com')
    await userEvent.click(screen.getByRole('button', { name: 'Request Access' }))

    expect(submitWaitlist).toHaveBeenCalledWith('ada@example.com')
    const busy = screen.getByRole('button', { name: 'Submitting...' })
    expect(busy).toHaveProperty('disabled', true)
    expect(input).toHaveProperty('disabled', true)

    await act(async () => pending.resolve({ status: 'submitted' }))
    expect(screen.getByRole('button', { name: 'Request Access' })).toHaveProperty('disabled', false)
    expect(input).toHaveProperty('value', '')
    expect(lastToast()).toMatchObject({ title: 'Request submitted!', variant: 'default' })
  })

  it('keeps the input and shows the duplicate toast when already registered', async () => {
    submitWaitlist.mockResolvedValue({ status: 'already_registered' })
    render(<WaitlistForm />)
    const input = screen.getByPlaceholderText('Enter your email')
    await userEvent.type(input, 'Ada@Example.com')
    await userEvent.click(screen.getByRole('button', { name: 'Request Access' }))
    expect(input).toHaveProperty('value', 'Ada@Example.com')
    expect(lastToast()).toMatchObject({ title: 'Already on the waitlist!', variant: 'destructive' })
  })

  it('keeps the input, shows the error toast and logs the error on any other failure', async () => {
    const failure = new Error('network down')
    submitWaitlist.mockResolvedValue({ status: 'error', error: failure })
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    render(<WaitlistForm />)
    const input = screen.getByPlaceholderText('Enter your email')
    await userEvent.type(input, 'ada@example.com')
    await userEvent.click(screen.getByRole('button', { name: 'Request Access' }))
    expect(input).toHaveProperty('value', 'ada@example.com')
    expect(lastToast()).toMatchObject({
      title: 'Error',
      description: 'There was an issue submitting your request. Please try again.',
      variant: 'destructive',
    })
    expect(logged).toHaveBeenCalledWith(expect.any(String), failure)
  })
})
