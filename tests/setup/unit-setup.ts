import { cleanup } from '@testing-library/react'
import { afterEach, beforeEach, vi } from 'vitest'

// An unexpected console.error (a React warning, a failed render) fails the test; tests that
// expect one (the spec's error log) replace this spy with their own.
let errorSpy: ReturnType<typeof vi.spyOn>
beforeEach(() => {
  errorSpy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    throw new Error(`Unexpected console.error: ${args.map(String).join(' ')}`)
  })
})
afterEach(() => {
  cleanup()
  errorSpy.mockRestore()
})
