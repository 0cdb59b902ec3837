import { columnIndex } from '../../server/admin/import'

const DOOR = columnIndex('consent_door')
const WORDS = columnIndex('consent_words')
const AT = columnIndex('consent_at')
const CREATED = columnIndex('created_at')

/**
 * A staged line's consent record (ADR 096), as import writes it: the file's own, when it names a
 * door (given no time, the entry's); else door `import`, the import's time, and `fileWords`, the
 * version of the words naming the file the line came from. `fields` are ENTRY_COLUMNS' (allColumns).
 */
export function withImportConsent(fields: string[], fileWords: string, importTime: string): string[] {
  if (fields[DOOR] === '') {
    fields[DOOR] = 'import'
    fields[WORDS] = fileWords
    fields[AT] = importTime
  } else if (fields[AT] === '') fields[AT] = fields[CREATED] || importTime
  return fields
}
