/** How long to wait after a failed attempt, and for how long to keep trying. */
export interface RetryPolicy {
  /** The wait after the first failure; each later one doubles it. */
  baseMs: number
  /** The longest wait between two attempts. */
  capMs: number
  /** Retries stop, and the delivery is marked failed, once this long has passed since it was queued. */
  retryForMs: number
}

/**
 * By default 1 s, 2 s, 4 s… capped at 5 minutes (300 times the base), for 24 hours: about 290
 * attempts before giving up. Tests shrink the base and the window, not the shape.
 */
export function retryPolicy(baseMs = 1_000, retryForMs = 24 * 60 * 60 * 1_000): RetryPolicy {
  return { baseMs, capMs: 300 * baseMs, retryForMs }
}

/**
 * The wait after `attempt` failed attempts (1 = the first). Up to a fifth more at random, so
 * deliveries that failed together (a receiver that was down) do not all come back in one burst.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const exponential = policy.baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30)
  const delay = Math.min(policy.capMs, exponential)
  return Math.round(delay * (1 + random() / 5))
}
