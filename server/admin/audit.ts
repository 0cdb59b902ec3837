/**
 * The record of who did what (ADR 113): who acts (the CLI's user, a member), a change's line written
 * in its transaction, a stranger's repeated refusals folded, and the record read back for `audit`
 * and the studio's Activity page.
 */
export { recordFolded } from '../audit/audit-fold'
export { type Actor, cliActor, recordAudit } from '../audit/audit-record'
export { type AuditEntry, type AuditPage, readAudit } from '../audit/audit-report'
