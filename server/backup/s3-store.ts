import { Readable } from 'node:stream'
import type { BackupStore } from './backup-store'

/** The SDK, loaded on first use (some 3 MiB), and a client from the environment's settings. */
async function s3Client() {
  // CommonJS packages: Node's import() gives their exports as `default` where it cannot list them.
  const sdk = await import('@aws-sdk/client-s3')
  const s3 = ('S3Client' in sdk ? sdk : (sdk as { default: typeof sdk }).default) as typeof sdk
  const storage = await import('@aws-sdk/lib-storage')
  const { Upload } = (
    'Upload' in storage ? storage : (storage as { default: typeof storage }).default
  ) as typeof storage
  const client = new s3.S3Client({
    region: process.env.AWS_REGION || 'us-east-1',
    // A store at its own address (MinIO, a test's) names buckets in the path, as every one accepts.
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
  return { s3, Upload, client }
}

/** GET answers NoSuchKey for a piece that is not there, HEAD a bare NotFound. */
const notFound = (error: unknown) =>
  ['NoSuchKey', 'NotFound'].includes((error as { name?: string }).name ?? '')

/** A piece's bytes from `start` to `end` (exclusive) as a stream, and its size; undefined when it is not there. */
async function rangeOf(
  client: import('@aws-sdk/client-s3').S3Client,
  s3: typeof import('@aws-sdk/client-s3'),
  bucket: string,
  key: string,
  start?: number,
  end?: number,
): Promise<{ body: Readable; size: number } | undefined> {
  try {
    const head = await client.send(new s3.HeadObjectCommand({ Bucket: bucket, Key: key }))
    const size = head.ContentLength ?? 0
    const from = start ?? 0
    const to = (end ?? size) - 1
    if (to < from) return { body: Readable.from([]), size }
    const answer = await client.send(
      new s3.GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${from}-${to}` }),
    )
    return { body: answer.Body as Readable, size }
  } catch (error) {
    if (notFound(error)) return undefined
    throw error
  }
}

/**
 * A bucket and prefix (BACKUP_URL=s3://bucket/prefix), any S3-compatible store (AWS, R2, B2, MinIO),
 * with the AWS SDK's own settings from the environment: AWS_ENDPOINT_URL, AWS_REGION,
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY. Checksums only when the operation requires them: third-
 * party stores refuse the SDK's newer defaults. Loaded only when a backup goes to S3.
 */
export async function s3Store(bucket: string, prefix: string): Promise<BackupStore> {
  const { s3, Upload, client } = await s3Client()
  const key = (name: string) => (prefix ? `${prefix}/${name}` : name)
  return {
    where: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
    async put(name, body) {
      await client.send(new s3.PutObjectCommand({ Bucket: bucket, Key: key(name), Body: body }))
    },
    async putStream(name, body) {
      // Multipart, a part at a time in memory: a base backup of any size, never held whole.
      await new Upload({
        client,
        params: { Bucket: bucket, Key: key(name), Body: body },
        queueSize: 1,
      }).done()
    },
    async get(name) {
      try {
        const answer = await client.send(new s3.GetObjectCommand({ Bucket: bucket, Key: key(name) }))
        return Buffer.from(
          await (answer.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        )
      } catch (error) {
        if (notFound(error)) return undefined
        throw error
      }
    },
    async size(name) {
      try {
        const head = await client.send(new s3.HeadObjectCommand({ Bucket: bucket, Key: key(name) }))
        return head.ContentLength ?? 0
      } catch (error) {
        if (notFound(error)) return undefined
        throw error
      }
    },
    getStream: (name, start, end) => rangeOf(client, s3, bucket, key(name), start, end),
    async list(under) {
      const names: string[] = []
      let token: string | undefined
      do {
        const page = await client.send(
          new s3.ListObjectsV2Command({ Bucket: bucket, Prefix: `${key(under)}/`, ContinuationToken: token }),
        )
        for (const item of page.Contents ?? [])
          if (item.Key) names.push(prefix ? item.Key.slice(prefix.length + 1) : item.Key)
        token = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (token)
      return names.sort()
    },
    async remove(name) {
      await client.send(new s3.DeleteObjectCommand({ Bucket: bucket, Key: key(name) }))
    },
  }
}
