import { invalidJson, unsupportedMediaType } from './postgrest-error'

export type Row = Record<string, unknown>

/** Reads a JSON body as PostgREST accepts it: one object, or an array of objects sharing their keys. */
export function parseRowsBody(contentType: string | null, text: string): { rows: Row[]; keys: string[] } {
  const mediaType = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') throw unsupportedMediaType(mediaType ?? '')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalidJson()
  }
  const rows = Array.isArray(value) ? value : [value]
  if (!rows.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))) {
    throw invalidJson('Expected a JSON object or an array of JSON objects')
  }
  const keys = Object.keys(rows[0] ?? {})
  const signature = [...keys].sort().join(',')
  if (rows.some((row) => Object.keys(row).sort().join(',') !== signature)) {
    throw invalidJson('All object keys must match')
  }
  return { rows: rows as Row[], keys }
}
