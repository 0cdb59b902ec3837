import { agentPhrase, agentProof } from '../../contract/agent-words'
import { escapeUnprinted } from '../../contract/clean-text'
import type { ConsentRecord } from '../../server/admin/entries'

/**
 * The consent record as `show` prints it, under its label: when, the door, the words' version and
 * text (indented), the network, the agent (as declared, and its signature's proof), the confirmation (docs/privacy.md).
 */
export function consentLines(consent: ConsentRecord | null): string[] {
  if (!consent) return ['  consent  (none kept: the entry is older than the consent record)']
  const { words, agent } = consent
  const lines = [
    `  consent  ${consent.at} through ${consent.door}`,
    `           from ${consent.network ?? '(no network known)'}`,
  ]
  if (agent) {
    lines.push(`           agent ${escapeUnprinted(agentPhrase(agent))}`)
    const proof = agentProof(agent)
    if (proof) lines.push(`             ${escapeUnprinted(proof)}`)
  }
  if (!words) lines.push('           words: none shown (a program, or the owner)')
  else {
    lines.push(
      `           words ${words.version}${words.text === null ? ' (text not held in this database)' : ':'}`,
    )
    for (const line of (words.text ?? '').split('\n'))
      if (line) lines.push(`             ${escapeUnprinted(line)}`)
  }
  if (consent.confirmed_at)
    lines.push(
      `           confirmed ${consent.confirmed_at} from ${consent.confirmed_from ?? '(no network known)'}`,
    )
  return lines
}
