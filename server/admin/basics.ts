/**
 * The door's light part (ADR 113): what the CLI reads on its first lines, before it knows its
 * command (ADR 109), so nothing here opens a database or loads a package. The errors a tool stops
 * with, the log's masks, the rule an address must meet, and where the built pages are.
 */
export { keyEmailMask, maskEmails, oneLine } from '../base/log'
export { DIST_DIR } from '../base/paths'
export { ConfigError, StartupError } from '../base/startup-error'
export { emailProblem } from '../waitlist/admin/email-rule'
