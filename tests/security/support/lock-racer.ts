// One of many processes taking DATA_DIR's lock at the same instant: each waits for the file
// `go`, takes the lock, says whether it won, and holds it until the file `done` appears.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { lockDataDir } from '../../../server/db/data-dir-lock'

const dataDir = process.argv[2] ?? ''
const signals = process.argv[3] ?? ''
console.log('ready')
while (!existsSync(join(signals, 'go'))) await sleep(2)
try {
  const unlock = await lockDataDir(dataDir, 'racer')
  console.log('won')
  for (let i = 0; i < 1500 && !existsSync(join(signals, 'done')); i++) await sleep(10)
  await unlock()
} catch (error) {
  console.log(`refused: ${(error as Error).message}`)
}
