import { readFile } from 'node:fs/promises'
import { parseCsv } from './csv-reader'
import { type DateOrder, timeZoneProblem } from './import-dates'
import { type ImportOptions, readColumns, readMaps } from './import-layout'

/** The flags `import` reads, as parseArgs gives them. */
export interface ImportFlags {
  map?: string[]
  'map-file'?: string
  column?: string[]
  dates?: string
  timezone?: string
  'ignore-unknown'?: boolean
}

/**
 * `--map-file FILE`: a CSV of mappings, a line each as `id,value,choice` (`role,Engineer,Engineering`),
 * a header line `id,value,choice` allowed: for a lab with many job titles, what many `--map` would say.
 */
async function mapFileEntries(path: string): Promise<string[] | { problem: string }> {
  const text = await readFile(path, 'utf8').catch(() => undefined)
  if (text === undefined) return { problem: `--map-file ${path}: cannot read it` }
  const rows = parseCsv(text.replace(/^\ufeff/, '')).filter((row) => row.some((cell) => cell.trim()))
  const body =
    rows[0]?.map((cell) => cell.trim().toLowerCase()).join(',') === 'id,value,choice' ? rows.slice(1) : rows
  const bad = body.find((row) => row.length !== 3)
  if (bad)
    return {
      problem: `--map-file ${path}: each line is id,value,choice, not ${JSON.stringify(bad.join(','))}`,
    }
  return body.map(([id, value, choice]) => `${id?.trim()}:${value?.trim()}=${choice?.trim()}`)
}

/** The options of `import` from its flags, or the usage problem with them. */
export async function readImportOptions(flags: ImportFlags): Promise<ImportOptions | { problem: string }> {
  const fromFile = flags['map-file'] ? await mapFileEntries(flags['map-file']) : []
  if ('problem' in fromFile) return fromFile
  const maps = readMaps([...fromFile, ...(flags.map ?? [])])
  if ('problem' in maps) return maps
  const columns = readColumns(flags.column ?? [])
  if ('problem' in columns) return columns
  if (flags.dates !== undefined && flags.dates !== 'mdy' && flags.dates !== 'dmy')
    return { problem: `--dates is mdy (10/14/2024) or dmy (14/10/2024), not ${JSON.stringify(flags.dates)}` }
  const zone = flags.timezone && timeZoneProblem(flags.timezone)
  if (zone) return { problem: zone }
  return {
    maps: maps.maps,
    columns: columns.columns,
    ignoreUnknown: flags['ignore-unknown'] === true,
    dates: flags.dates as DateOrder | undefined,
    timeZone: flags.timezone,
  }
}
