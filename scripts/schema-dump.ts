import { writeFile } from 'node:fs/promises'
import { relative } from 'node:path'
import { parseArgs } from 'node:util'
import { stopBackends } from '../harness/backends'
import { migratedSchemaSql, SCHEMA_FILE } from '../harness/schema-sql'

/**
 * `npm run schema`: writes supabase/schema.sql, the schema as the migrations leave it, read from a
 * database they built (a copy of the tests' migrated template, made again when a migration
 * changed). tests/server/schema-file.test.ts fails until the file is written again after a
 * migration. `--out FILE` writes elsewhere (the test's own run of this command).
 */
const { values } = parseArgs({ options: { out: { type: 'string', default: SCHEMA_FILE } } })
try {
  const text = await migratedSchemaSql()
  await writeFile(values.out, text)
  const through = /through (\S+)\.$/m.exec(text)?.[1]
  console.log(`Wrote ${relative(process.cwd(), values.out)} (migrations through ${through}).`)
} finally {
  await stopBackends()
}
