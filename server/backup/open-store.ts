import { type BackupStore, fileStore } from './backup-store'

/** The store BACKUP_URL (or `restore --from`) names: file:///path, or s3://bucket/prefix. */
export async function openBackupStore(url: string): Promise<BackupStore> {
  const parsed = new URL(url)
  if (parsed.protocol === 'file:') return fileStore(decodeURIComponent(parsed.pathname))
  const { s3Store } = await import('./s3-store')
  return s3Store(parsed.host, decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, ''))
}

/** How a store names itself (its `where`), from its URL, without opening it (the SDK loads late). */
export function storeWhere(url: string): string {
  const parsed = new URL(url)
  if (parsed.protocol === 'file:') return `file://${decodeURIComponent(parsed.pathname)}`
  const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, '')
  return `s3://${parsed.host}${prefix ? `/${prefix}` : ''}`
}

/** Whether `restore --from` names a store rather than a directory. */
export const isStoreUrl = (from: string) => /^(file|s3):\/\//.test(from)
