import { createHash } from 'node:crypto'

// Good enough to catch anything that looks like an address, including ones the database refused.
const EMAIL_PATTERN = /[^\s"'<>()[\],;:@/?&=]+@[^\s"'<>()[\],;:/?&=]+/g

/** Replaces every e-mail address with a short stable hash, so logs can correlate but never reveal. */
export function maskEmails(text: string): string {
  return text.replace(EMAIL_PATTERN, (email) => {
    const digest = createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 10)
    return `<email:${digest}>`
  })
}

export type LogLevel = 'silent' | 'error' | 'info'

export interface Logger {
  info(message: string): void
  error(message: string, error?: unknown): void
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`
  return String(error)
}

export function createLogger(level: LogLevel): Logger {
  return {
    info(message) {
      if (level === 'info') console.log(maskEmails(message))
    },
    error(message, error) {
      if (level === 'silent') return
      console.error(maskEmails(error === undefined ? message : `${message} ${describeError(error)}`))
    },
  }
}
