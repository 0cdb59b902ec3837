import { useEffect, useState } from 'react'
import { nameQuestion, signupQuestions } from '../../contract/site-config'
import type { HistoryItem } from '../../server/admin/entries'
import { type EntryHistory, fetchEntry } from './choose-api'
import { ConsentDetails } from './consent-details'
import { NoteEditor } from './note-editor'
import { useMay } from './role'
import { FOCUS } from './styles'
import { useModal } from './use-modal'

/** `2026-11-27 09:00:00 UTC` from the history's microsecond UTC times. */
const when = (at: string) => `${at.slice(0, 19).replace('T', ' ')} UTC`

/**
 * One entry, as `show EMAIL` tells it: its address, status, source, answers (whole, however long),
 * the team's tags and note (the note edited here), its consent record, its history oldest first, and
 * Remove, which asks first. A native modal <dialog>, as the removal's: focus stays inside, Escape
 * closes it, and focus goes back to the address that opened it.
 */
export function EntryPanel(props: {
  email: string | undefined
  /** A change elsewhere (a tag, the note): the entry is read again, in place. */
  version: number
  onClose(): void
  onRemove(email: string): void
  onChanged(): void
}) {
  const { email, onClose } = props
  const modal = useModal(Boolean(email), onClose)
  const { entry, error } = useEntry(email, props.version)
  const mayMark = useMay('member')
  const mayRemove = useMay('owner')
  return (
    <dialog
      {...modal}
      aria-labelledby="entry-heading"
      className="m-auto w-full max-w-2xl rounded-lg border border-line bg-panel p-6 text-ink shadow-xl"
    >
      <div className="flex items-start justify-between gap-4">
        <h2 id="entry-heading" className="text-lg font-semibold break-all">
          {email}
        </h2>
        <button type="button" onClick={onClose} className={`rounded border border-line px-3 py-1 ${FOCUS}`}>
          Close
        </button>
      </div>
      {error && (
        <p role="alert" className="mt-3 rounded border border-danger bg-danger-soft p-3 text-danger">
          {error}
        </p>
      )}
      {!entry && !error && <p className="mt-4 text-soft">Loading…</p>}
      {entry && (
        <>
          <EntryDetails entry={entry} />
          {mayMark ? (
            <NoteEditor key={entry.email} email={entry.email} note={entry.note} onSaved={props.onChanged} />
          ) : (
            entry.note && <p className="mt-3 whitespace-pre-wrap">{entry.note}</p>
          )}
          <EntryHistoryList entry={entry} />
          {mayRemove && <RemoveButton email={entry.email} onRemove={props.onRemove} />}
        </>
      )}
    </dialog>
  )
}

/** The entry with this address, read when it is opened and again, in place, after a change. */
function useEntry(email: string | undefined, version: number) {
  const [entry, setEntry] = useState<EntryHistory>()
  const [error, setError] = useState('')
  // biome-ignore lint/correctness/useExhaustiveDependencies: another entry starts empty
  useEffect(() => {
    setEntry(undefined)
    setError('')
  }, [email])
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read after a change
  useEffect(() => {
    if (!email) return
    let current = true
    fetchEntry(email).then(
      (read) => current && setEntry(read),
      (reason: Error) => current && setError(reason.message),
    )
    return () => {
      current = false
    }
  }, [email, version])
  return { entry, error }
}

/** Remove, away from the list's boxes; the removal's own dialog asks first. */
function RemoveButton({ email, onRemove }: { email: string; onRemove(email: string): void }) {
  return (
    <div className="mt-6 border-t border-line pt-4">
      <button
        type="button"
        aria-label={`Remove ${email}`}
        onClick={() => onRemove(email)}
        className={`rounded border border-danger px-3 py-1.5 text-danger hover:bg-danger-soft ${FOCUS}`}
      >
        Remove from the waitlist
      </button>
    </div>
  )
}

function EntryDetails({ entry }: { entry: EntryHistory }) {
  const answered = signupQuestions.filter((question) => entry.answers[question.id] !== undefined)
  // An agent's proposed name is held with its answers (server/waitlist/entry-name.ts).
  const proposed = [nameQuestion, ...signupQuestions].filter(
    (question) => entry.proposed[question.id] !== undefined,
  )
  return (
    <>
      <dl className="mt-4 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
        <dt className="font-medium">Name</dt>
        <dd className="[overflow-wrap:anywhere]">{entry.name ?? 'none given'}</dd>
        <dt className="font-medium">Status</dt>
        <dd>{entry.status}</dd>
        <dt className="font-medium">Source</dt>
        <dd className="[overflow-wrap:anywhere]">{entry.source ?? 'none kept'}</dd>
        {answered.map((question) => (
          <Answer key={question.id} label={question.label} value={entry.answers[question.id] ?? ''} />
        ))}
        <dt className="font-medium">Tags</dt>
        <dd>{entry.tags.length > 0 ? entry.tags.join(' ') : 'none (Tag selected gives one)'}</dd>
      </dl>
      {answered.length === 0 && <p className="mt-2 text-sm text-soft">No answers to the lab's questions.</p>}
      {proposed.length > 0 && (
        <>
          <h3 className="mt-4 font-semibold">Proposed by an agent, not counted</h3>
          <p className="text-sm text-soft">Held until the person keeps them on the confirmation page.</p>
          <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
            {proposed.map((question) => (
              <Answer key={question.id} label={question.label} value={entry.proposed[question.id] ?? ''} />
            ))}
          </dl>
        </>
      )}
      <ConsentDetails consent={entry.consent} />
    </>
  )
}

function EntryHistoryList({ entry }: { entry: EntryHistory }) {
  return (
    <>
      <h3 className="mt-4 font-semibold">History, oldest first</h3>
      <ol className="mt-2 space-y-1 text-sm">
        {entry.history.map((item) => (
          // Two lines alike to the microsecond would be the same line twice.
          <HistoryLine
            key={[item.at, item.event, item.kind, item.outcome, item.detail].join('|')}
            item={item}
          />
        ))}
      </ol>
    </>
  )
}

function Answer({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt className="font-medium">{label}</dt>
      <dd className="whitespace-pre-line [overflow-wrap:anywhere]">{value}</dd>
    </>
  )
}

/** A line of the history: when, what, and for a message its kind and what became of it. */
function HistoryLine({ item }: { item: HistoryItem }) {
  // "invitation message: sent, then delivered"
  const what =
    item.event === 'message' ? `${item.kind ?? 'a'} message: ${item.outcome ?? 'queued'}` : item.event
  return (
    <li className="grid gap-x-3 sm:grid-cols-[12rem_minmax(0,1fr)]">
      <time dateTime={item.at} className="text-soft tabular-nums">
        {when(item.at)}
      </time>
      <span className="[overflow-wrap:anywhere]">
        {what}
        {item.detail && <span className="text-soft"> ({item.detail})</span>}
        {item.by && ` by ${item.by}`}
      </span>
    </li>
  )
}
