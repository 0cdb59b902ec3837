import { beforeEach, describe, expect, it, vi } from 'vitest'

const insert = vi.fn()
const from = vi.fn(() => ({ insert }))
let loadFails = false
vi.mock('./load-supabase', () => ({
  loadSupabase: () => (loadFails ? Promise.reject(new Error('chunk failed')) : Promise.resolve({ from })),
}))

const { submitWaitlist } = await import('./submit-waitlist')

beforeEach(() => {
  insert.mockReset()
  from.mockClear()
  loadFails = false
})

describe('submitWaitlist', () => {
  it("inserts { email } into the 'waitlist' table", async () => {
    insert.mockResolvedValue({ error: null })
    await expect(submitWaitlist('ada@example.com')).resolves.toEqual({ status: 'submitted' })
    expect(from).toHaveBeenCalledWith('waitlist')
    expect(insert).toHaveBeenCalledWith({ email: 'ada@example.com' })
  })

  it("names the WebMCP door in a header when an agent's call makes the insert", async () => {
    const setHeader = vi.fn().mockResolvedValue({ error: null })
    insert.mockReturnValue({ setHeader })
    await expect(submitWaitlist('ada@example.com', true)).resolves.toEqual({ status: 'submitted' })
    expect(insert).toHaveBeenCalledWith({ email: 'ada@example.com' })
    expect(setHeader).toHaveBeenCalledWith('X-Waitlist-Door', 'webmcp')
  })

  it('maps a unique violation to already_registered', async () => {
    insert.mockResolvedValue({
      error: {
        code: '23505',
        message: 'duplicate key value violates unique constraint "waitlist_email_key"',
      },
    })
    await expect(submitWaitlist('ada@example.com')).resolves.toEqual({ status: 'already_registered' })
  })

  it('maps a network failure reported by supabase-js to error', async () => {
    const error = { code: '', message: 'TypeError: Failed to fetch' }
    insert.mockResolvedValue({ error })
    await expect(submitWaitlist('ada@example.com')).resolves.toEqual({ status: 'error', error })
  })

  it('maps a thrown error (client failed to load) to error', async () => {
    loadFails = true
    const outcome = await submitWaitlist('ada@example.com')
    expect(outcome.status).toBe('error')
  })
})
