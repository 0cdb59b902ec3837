import { startRegistration } from '@simplewebauthn/browser'
import { type FormEvent, useCallback, useEffect, useState } from 'react'
import { SessionsList } from './sessions-list'
import { FOCUS } from './styles'
import {
  addPasskey,
  fetchPasskeys,
  type PasskeyInfo,
  passkeyOptions,
  removePasskey,
  renamePasskey,
} from './team-api'

const BUTTON = `rounded border border-line px-3 py-1 ${FOCUS}`

/**
 * A member's own passkeys: another one (a second device), a name for each, and removal (never the
 * last), which ends the sessions it made; then where they are signed in (sessions-list.tsx).
 */
export function PasskeysPage({ onFail }: { onFail(reason: unknown): void }) {
  const [passkeys, setPasskeys] = useState<PasskeyInfo[]>()
  const [said, setSaid] = useState('')
  // Bumped when a passkey goes: the sessions it made went with it.
  const [version, setVersion] = useState(0)
  const load = useCallback(() => fetchPasskeys().then((read) => setPasskeys(read.passkeys), onFail), [onFail])
  const changed = () => {
    load()
    setVersion((before) => before + 1)
  }
  useEffect(() => {
    load()
  }, [load])

  return (
    <section
      aria-labelledby="passkeys-heading"
      className="space-y-4 rounded-lg border border-line bg-panel p-4"
    >
      <h1 id="passkeys-heading" className="text-2xl font-bold">
        Your passkeys
      </h1>
      <ul className="space-y-3">
        {passkeys?.map((passkey) => (
          <PasskeyRow
            key={passkey.id}
            passkey={passkey}
            onChanged={changed}
            onSaid={setSaid}
            onFail={onFail}
          />
        ))}
      </ul>
      <AddPasskey onSaid={setSaid} onAdded={load} onFail={onFail} />
      <SessionsList key={version} onSaid={setSaid} onFail={onFail} />
      <p role="status" className={said ? 'text-accent' : 'sr-only'}>
        {said}
      </p>
    </section>
  )
}

/** Another passkey of the member's (a second device), named as they like. */
function AddPasskey(props: { onSaid(words: string): void; onAdded(): void; onFail(reason: unknown): void }) {
  const [name, setName] = useState('')
  async function add(event: FormEvent) {
    event.preventDefault()
    try {
      const response = await startRegistration({ optionsJSON: await passkeyOptions() })
      const { added } = await addPasskey(name, response)
      props.onSaid(`Added ${added}.`)
      setName('')
      props.onAdded()
    } catch (reason) {
      props.onFail(reason)
    }
  }
  return (
    <form onSubmit={add} className="flex flex-wrap items-end gap-2">
      <div>
        <label htmlFor="new-passkey" className="block text-sm font-medium">
          Name the new passkey (optional)
        </label>
        <input
          id="new-passkey"
          value={name}
          maxLength={60}
          onChange={(event) => setName(event.target.value)}
          className={`mt-1 rounded border border-line bg-page px-3 py-1 ${FOCUS}`}
        />
      </div>
      <button type="submit" className={BUTTON}>
        Add a passkey
      </button>
    </form>
  )
}

function PasskeyRow(props: {
  passkey: PasskeyInfo
  onChanged(): void
  onSaid(words: string): void
  onFail(reason: unknown): void
}) {
  const { passkey } = props
  const [name, setName] = useState(passkey.name)
  const act = <T,>(done: Promise<T>, words: string | ((result: T) => string)) =>
    done.then((result) => {
      props.onSaid(typeof words === 'string' ? words : words(result))
      props.onChanged()
    }, props.onFail)
  return (
    <li className="flex flex-wrap items-end gap-2 border-b border-line pb-3">
      <div>
        <label htmlFor={`name-${passkey.id}`} className="block text-sm font-medium">
          Name
        </label>
        <input
          id={`name-${passkey.id}`}
          value={name}
          maxLength={60}
          onChange={(event) => setName(event.target.value)}
          className={`mt-1 rounded border border-line bg-page px-3 py-1 ${FOCUS}`}
        />
      </div>
      <button
        type="button"
        className={BUTTON}
        onClick={() => act(renamePasskey(passkey.id, name), `Renamed ${name}.`)}
      >
        Save name
      </button>
      <button
        type="button"
        aria-label={`Remove ${passkey.name}`}
        className={`rounded border border-danger px-3 py-1 text-danger ${FOCUS}`}
        onClick={() =>
          act(removePasskey(passkey.id), (removed) => removedWords(passkey.name, removed.sessionsEnded))
        }
      >
        Remove
      </button>
      <p className="w-full text-sm text-soft">
        Added {passkey.createdAt} UTC
        {passkey.lastUsedAt ? `, last used ${passkey.lastUsedAt} UTC` : ', not used to sign in yet'}
        {passkey.backedUp ? '; synced by its provider' : ''}
      </p>
    </li>
  )
}

/** A removed passkey, and the sessions it had signed in, which ended with it. */
const removedWords = (name: string, sessions: number) =>
  sessions === 0
    ? `Removed ${name}.`
    : `Removed ${name}; ${sessions === 1 ? 'the session' : `the ${sessions} sessions`} it signed in ended.`
