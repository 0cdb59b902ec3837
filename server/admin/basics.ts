/**
 * The door's light part (ADR 113): what the CLI reads on its first lines, before it knows its
 * command (ADR 109), so nothing here opens a database, loads a package or reads a file: the errors
 * a tool stops with, and the rule an address must meet.
 */
export { ConfigError, StartupError } from '../base/startup-error'
export { emailProblem } from '../waitlist/admin/email-rule'
