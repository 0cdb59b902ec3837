import { type FormEvent, useId, useState } from 'react'
import { tagAddresses } from './choose-api'
import { InviteOutcome } from './invite-preview'
import { FOCUS } from './styles'
import { useAction } from './use-invite'

const MAX_SELECTED = 1_000
const entries = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'entry' : 'entries'}`

/**
 * "Tag selected": the team's tag given to the rows ticked (or taken from them), as `tag EMAIL… TAG`
 * and `untag` do. A tag is the lab's own mark (`shortlist`, `ask-again`): the person never sees it.
 */
export function TagSelected(props: {
  selected: readonly string[]
  /** The tags the list already has, offered as the owner types. */
  known: readonly string[]
  onTagged(): void
}) {
  const { selected } = props
  const [tag, setTag] = useState('')
  const { busy, status, setStatus, error, act } = useAction()
  const id = useId()
  const run = (untag: boolean) =>
    act(async () => {
      const done = await tagAddresses(selected, tag, untag)
      const already =
        done.unchanged > 0 ? ` ${entries(done.unchanged)} ${untag ? 'did not have' : 'already had'} it.` : ''
      const gone = done.unknown > 0 ? ` ${entries(done.unknown)} no longer on the list.` : ''
      const full =
        done.full.length > 0
          ? ` Not tagged, as they carry the most tags an entry may have: ${done.full.join(', ')}.`
          : ''
      setStatus(
        `${untag ? 'Untagged' : 'Tagged'} ${entries(done.changed)} ${done.tag}.${already}${gone}${full}`,
      )
      props.onTagged()
    })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void run(false)
  }
  const none = selected.length === 0 || selected.length > MAX_SELECTED || tag.trim() === '' || busy
  return (
    <section aria-labelledby={`${id}-heading`} className="mt-3 rounded border border-line p-3">
      <h3 id={`${id}-heading`} className="sr-only">
        Tag selected
      </h3>
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3 text-sm">
        <TagField id={id} tag={tag} known={props.known} onChange={setTag} />
        <button
          type="submit"
          disabled={none}
          className={`rounded bg-button px-3 py-1.5 font-medium text-button-ink disabled:opacity-60 ${FOCUS}`}
        >
          {selected.length === 0 ? 'Tag selected' : `Tag ${selected.length.toLocaleString('en-US')} selected`}
        </button>
        <button
          type="button"
          disabled={none}
          onClick={() => void run(true)}
          className={`rounded border border-line px-3 py-1.5 disabled:opacity-60 ${FOCUS}`}
        >
          Untag
        </button>
      </form>
      <InviteOutcome error={error} status={status} />
    </section>
  )
}

/** The tag to give, the list's own tags offered as the owner types. */
function TagField(props: { id: string; tag: string; known: readonly string[]; onChange(tag: string): void }) {
  const { id } = props
  return (
    <div>
      <label htmlFor={id} className="block font-medium">
        Tag (a word: shortlist, ask-again)
      </label>
      <input
        id={id}
        list={`${id}-known`}
        value={props.tag}
        maxLength={32}
        onChange={(event) => props.onChange(event.target.value)}
        className={`mt-1 w-48 rounded border border-line bg-page px-3 py-1.5 ${FOCUS}`}
      />
      <datalist id={`${id}-known`}>
        {props.known.map((known) => (
          <option key={known} value={known} />
        ))}
      </datalist>
    </div>
  )
}
