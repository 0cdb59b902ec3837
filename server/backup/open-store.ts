import { type BackupStore, fileStore } from './backup-store'

/** The store BACKUP_URL (or `restore --from`) names: file:///path, or s3://bucket/prefix. */
export async function openBackupStore(url: string): Promise<BackupStore> {
  const parsed = new URL(url)
  if (parsed.protocol === 'file:') return fileStore(decodeURIComponent(parsed.pathname))
  const { s3Store } = await import('./s3-store')
  return s3Store(parsed.host, decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, ''))
}

/** Whether `restore --from` names a store rather than a directory. */
export const isStoreUrl = (from: string) => /^(file|s3):\/\//.test(from)
