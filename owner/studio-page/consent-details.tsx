import { agentPhrase, agentProof } from '../../contract/agent-words'
import type { ConsentRecord } from '../../server/admin/entries'

/** `2026-11-27 09:00:00 UTC` from the record's microsecond UTC times. */
const when = (at: string) => `${at.slice(0, 19).replace('T', ' ')} UTC`

/**
 * The entry's consent record, as `show` prints it (docs/privacy.md): when, the door, the network, the
 * agent (as it declared itself, and its signature's proof), the confirmation, and the words the door showed.
 */
export function ConsentDetails({ consent }: { consent: ConsentRecord | null }) {
  if (!consent)
    return (
      <>
        <h3 className="mt-4 font-semibold">Consent</h3>
        <p className="text-sm text-soft">None kept: the entry is older than the consent record.</p>
      </>
    )
  const { agent, words } = consent
  return (
    <>
      <h3 className="mt-4 font-semibold">Consent</h3>
      <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
        <dt className="font-medium">Given</dt>
        <dd>
          <time dateTime={consent.at}>{when(consent.at)}</time> through {consent.door}
        </dd>
        <dt className="font-medium">Network</dt>
        <dd>{consent.network ?? 'none known'}</dd>
        <dt className="font-medium">Agent</dt>
        <dd className="[overflow-wrap:anywhere]">
          {agent ? agentPhrase(agent) : 'none'}
          {agent && agentProof(agent) ? <span className="block text-soft">{agentProof(agent)}</span> : null}
        </dd>
        <dt className="font-medium">Confirmed</dt>
        <dd>
          {consent.confirmed_at
            ? `${when(consent.confirmed_at)} from ${consent.confirmed_from ?? 'no network known'}`
            : 'not confirmed'}
        </dd>
        <dt className="font-medium">Words</dt>
        <dd>
          {words ? (
            <>
              <span className="text-soft">version {words.version}</span>
              <span className="block whitespace-pre-line [overflow-wrap:anywhere]">
                {words.text ?? 'its text is not held in this database'}
              </span>
            </>
          ) : (
            'none shown (a program, or the owner)'
          )}
        </dd>
      </dl>
    </>
  )
}
