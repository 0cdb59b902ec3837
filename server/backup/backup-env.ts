import * as z from 'zod'
import { optional } from '../base/optional-env'

/** Where continuous backup goes: a mounted disk (file:///path) or an S3 bucket (s3://bucket/prefix). */
const backupUrl = z.string().transform((value, context) => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  const file = url?.protocol === 'file:' && url.host === '' && url.pathname.length > 1
  const s3 = url?.protocol === 's3:' && url.host !== ''
  if (!file && !s3) {
    context.addIssue({
      code: 'custom',
      message: 'must be file:///absolute/path (a disk off this machine) or s3://bucket/prefix',
    })
    return z.NEVER
  }
  return value.replace(/\/+$/, '')
})

/** 32 bytes, as 64 hex digits or base64 (`openssl rand -base64 32`). */
const backupKey = z.string().transform((value, context) => {
  const bytes = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64')
  if (
    bytes.length !== 32 ||
    (!/^[0-9a-f]{64}$/i.test(value) && bytes.toString('base64') !== value.replace(/\s/g, ''))
  ) {
    context.addIssue({
      code: 'custom',
      message: 'must be 32 random bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
    })
    return z.NEVER
  }
  return bytes
})

/** Continuous backup's variables (docs/deploy.md), merged into the server's env schema. */
export const backupEnv = {
  /** Keep the embedded cluster's backup current there: a base each day, the WAL within 60 s. */
  BACKUP_URL: optional(backupUrl),
  /** Encrypts everything that leaves the machine (it holds addresses and the JWT secret). */
  BACKUP_KEY: optional(backupKey),
  /** How long old bases and their WAL are kept; the latest base is always kept. */
  BACKUP_RETENTION_DAYS: optional(z.coerce.number().int().min(1).max(3650)).transform((v) => v ?? 14),
}
