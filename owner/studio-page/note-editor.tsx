import { type FormEvent, useId, useState } from 'react'
import { saveNote } from './choose-api'
import { InviteOutcome } from './invite-preview'
import { FOCUS } from './styles'
import { useAction } from './use-invite'

const MAX_NOTE = 1000

/**
 * The team's note on an entry, edited in its panel and saved as `note EMAIL TEXT` saves it (empty
 * clears it). The lab's own words, but not a secret from the person: their own page and its
 * download show it, with the tags (GDPR Art. 15; ADR 117), so the box says so.
 */
export function NoteEditor(props: { email: string; note: string | null; onSaved(): void }) {
  const id = useId()
  const [text, setText] = useState(props.note ?? '')
  const { busy, status, setStatus, error, act } = useAction()
  const length = [...text.trim()].length
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void act(async () => {
      const saved = await saveNote(props.email, text)
      setStatus(
        !saved.changed ? 'The note was already so.' : saved.note === null ? 'Note cleared.' : 'Note saved.',
      )
      props.onSaved()
    })
  }
  return (
    <form onSubmit={submit} className="mt-4 text-sm">
      <label htmlFor={id} className="block font-semibold">
        The team's note
      </label>
      <p id={`${id}-rule`} className="text-soft">
        The person can read it, with the tags, on their own data page. Up to{' '}
        {MAX_NOTE.toLocaleString('en-US')} characters; empty clears it.
      </p>
      <textarea
        id={id}
        value={text}
        rows={3}
        aria-describedby={`${id}-rule`}
        onChange={(event) => {
          setText(event.target.value)
          setStatus('')
        }}
        className={`mt-1 w-full rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
      />
      <div className="mt-1 flex items-center justify-between gap-3">
        <span className={`tabular-nums ${length > MAX_NOTE ? 'text-danger' : 'text-soft'}`}>
          {length.toLocaleString('en-US')} / {MAX_NOTE.toLocaleString('en-US')}
        </span>
        <button
          type="submit"
          disabled={busy || length > MAX_NOTE}
          className={`rounded border border-line px-3 py-1 font-medium disabled:opacity-60 ${FOCUS}`}
        >
          Save note
        </button>
      </div>
      <InviteOutcome error={error} status={status} />
    </form>
  )
}
