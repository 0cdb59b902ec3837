import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** A CSV file of these lines in `dir`, each ended as a spreadsheet of that kind ends it; its path. */
export async function writeCsv(
  dir: string,
  name: string,
  lines: readonly string[],
  eol = '\n',
): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, `${lines.join(eol)}${eol}`)
  return path
}
