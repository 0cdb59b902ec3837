import { escapeUnprinted, escapeUnprintedJson } from '../../contract/clean-text'
import { cliActor } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'
import { listWords, suppressedCounts, unsuppress } from '../../server/admin/settings'
import { exitFor } from './exit-status'
import { plural } from './plural'

/**
 * `consent-words [--json]`: every version of the words the doors showed (ADR 096), oldest use
 * first: its version and full hash, the doors and how many entries point to it, its first and last
 * use among the entries held, and its text. --json: an array of {version, hash, text, doors,
 * entries, first, last, registered}.
 */
export async function consentWordsCommand(db: Database, json: boolean): Promise<number> {
  const versions = await listWords(db)
  if (json) {
    console.log(escapeUnprintedJson(JSON.stringify(versions, null, 2)))
    return 0
  }
  if (versions.length === 0) {
    console.log("No words are registered yet: a server registers its doors' words when it starts.")
    return 0
  }
  const blocks = versions.map((words) => {
    const used =
      words.entries === 0
        ? 'no entry points to it now'
        : `${plural(words.entries, 'entry', 'entries')} (${words.doors.join(', ')}), first ${words.first}, last ${words.last}`
    const text =
      words.text === null
        ? ['  (its text is not held in this database: an import named it)']
        : words.text.split('\n').map((line) => `  ${line}`)
    return [
      `${words.version}  ${used}`,
      `  sha256 ${words.hash ?? '(unknown)'}${words.registered ? `, stored ${words.registered}` : ''}`,
      ...text,
    ]
      .map((line) => escapeUnprinted(line))
      .join('\n')
  })
  console.log(blocks.join('\n\n'))
  return 0
}

/** `suppressed`: how many erased or removed addresses imports skip (ADR 098). */
export async function suppressedCommand(db: Database): Promise<number> {
  const { removed, erased } = await suppressedCounts(db)
  console.log(
    `${plural(removed + erased, 'address is', 'addresses are')} kept out of imports ` +
      `(${removed} removed by the owner, ${erased} erased by the person).`,
  )
  return 0
}

/**
 * `unsuppress EMAIL`: the owner lets an erased or removed address be imported again, recorded as
 * `cli:` and the OS user. Exits by the one rule (exit-status.ts): 1 when it was not kept out.
 */
export async function unsuppressCommand(db: Database, email: string): Promise<number> {
  const allowed = await unsuppress(db, email, cliActor())
  if (allowed) console.log(`${email} may be imported again.`)
  else console.log(`${email} was not kept out of imports; nothing changed.`)
  return exitFor(allowed ? 1 : 0)
}
