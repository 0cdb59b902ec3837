import { describe, expect, it } from 'vitest'
import { seconds } from '../../server/rate-limit/rate-limit'

describe('the waits the 429 hints and the MCP refusal name', () => {
  it('say "1 second", never "1 seconds"', () => {
    expect(`Try again in ${seconds(1)}`).toBe('Try again in 1 second')
    expect(`Try again in ${seconds(6)}`).toBe('Try again in 6 seconds')
  })
})
