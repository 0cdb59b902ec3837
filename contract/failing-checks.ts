/**
 * The failing checks of a preflight by name, once each, in their order: "DMARC alignment, SPF".
 * One wording for what a batch sent anyway skipped: the record's `--skip-preflight (failing: …)`
 * (server/mail/preflight/preflight-gate.ts) and the studio's "Send anyway" question name the same.
 */
export const failingChecks = (lines: readonly { check: string }[]): string =>
  [...new Set(lines.map((line) => line.check))].join(', ')
