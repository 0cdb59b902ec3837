/** A reason the server cannot start that the operator can fix: printed as it is, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError'
}

/** A variable the operator set wrongly: every bad one listed in one message, without a stack. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}
