/** A reason the server cannot start that the operator can fix: printed as it is, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError'
}
