import { type FormEvent, useState } from 'react'
import { INVITE_PREVIEW_URL, type InvitePreview } from './api'
import { TestSendForm } from './test-send-form'
import { useInvite } from './use-invite'

const FOCUS = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent'
const people = (n: number) => `${n} ${n === 1 ? 'person' : 'people'}`

/**
 * "Invite the next N": the count and the message are shown first, and nothing is queued until the
 * owner says so; the running server then sends at MAIL_PER_MINUTE.
 */
export function InvitePanel({ onQueued }: { onQueued(): void }) {
  const invite = useInvite(onQueued)
  const { preview } = invite
  return (
    <section aria-labelledby="invite-heading" className="rounded-lg border border-line bg-panel p-4">
      <h2 id="invite-heading" className="text-lg font-semibold">
        Invite the next N
      </h2>
      <CountForm busy={invite.busy} onPreview={invite.showPreview} />
      {invite.error && (
        <p role="alert" className="mt-3 rounded border border-danger bg-danger-soft p-3 text-danger">
          {invite.error}
        </p>
      )}
      {/* A live region, not role=status: the page's one status line is the removal's. */}
      <p aria-live="polite" className={invite.status ? 'mt-3 text-accent' : 'sr-only'}>
        {invite.status}
      </p>
      {invite.open && (
        <div className="mt-4 space-y-3">
          {preview && <PreviewSummary preview={preview} />}
          <iframe
            src={INVITE_PREVIEW_URL}
            title="The invitation as it will look"
            // An origin of its own: nothing in the frame could reach the studio's token. Its own CSP
            // (owner/studio-server/studio-invite.ts) runs no script; allow-scripts only lets a checker
            // such as axe look inside, as it does on the page.
            sandbox="allow-scripts"
            className="h-96 w-full rounded border border-line"
          />
          <TestSendForm />
          {preview && (
            <SendButtons
              preview={preview}
              busy={invite.busy}
              onSend={() => invite.send(preview)}
              onCancel={invite.cancel}
            />
          )}
        </div>
      )}
    </section>
  )
}

function CountForm({ busy, onPreview }: { busy: boolean; onPreview(count: number): void }) {
  const [count, setCount] = useState('10')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onPreview(Number(count))
  }
  return (
    <form onSubmit={submit} className="mt-3 flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor="invite-count" className="block text-sm font-medium">
          People to invite (oldest signups first)
        </label>
        <input
          id="invite-count"
          type="number"
          min={1}
          max={1000000}
          required
          value={count}
          onChange={(event) => setCount(event.target.value)}
          className={`mt-1 w-32 rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
        />
      </div>
      <button
        type="submit"
        disabled={busy}
        className={`rounded border border-line px-3 py-2 font-medium ${FOCUS}`}
      >
        Preview
      </button>
    </form>
  )
}

/** How many, the first few, From and Subject. */
function PreviewSummary({ preview }: { preview: InvitePreview }) {
  const fewer = preview.count < preview.requested ? ` (only ${preview.waiting} waiting)` : ''
  const more = preview.count - preview.recipients.length
  return (
    <>
      <h3 className="font-semibold">
        {people(preview.count)} will be invited{fewer}
      </h3>
      {preview.recipients.length > 0 && (
        <ul aria-label="Who will be invited" className="text-sm text-soft">
          {preview.recipients.map((recipient) => (
            <li key={recipient.email} className="break-all">
              {recipient.email}
            </li>
          ))}
          {more > 0 && <li>and {more} more</li>}
        </ul>
      )}
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 text-sm">
        <dt className="font-medium">From</dt>
        <dd className="break-all">{preview.from ?? 'none yet: the server that sends has no MAIL_FROM'}</dd>
        <dt className="font-medium">Subject</dt>
        <dd>{preview.subject}</dd>
      </dl>
    </>
  )
}

function SendButtons(props: { preview: InvitePreview; busy: boolean; onSend(): void; onCancel(): void }) {
  const { preview } = props
  return (
    <>
      {/* Notes, not errors: nothing was attempted, and queuing works without a sender. */}
      {[preview.placeholder, preview.settingsUnknown, preview.cannotSend].map(
        (note) =>
          note && (
            <p key={note} className="rounded border border-line p-3 text-sm">
              {note}
            </p>
          ),
      )}
      <div className="flex gap-2">
        <button
          type="button"
          disabled={props.busy || preview.count === 0 || preview.placeholder !== null}
          onClick={props.onSend}
          className={`rounded bg-button px-3 py-2 font-medium text-button-ink disabled:opacity-60 ${FOCUS}`}
        >
          Send {preview.count === 1 ? '1 invitation' : `${preview.count} invitations`}
        </button>
        <button
          type="button"
          onClick={props.onCancel}
          className={`rounded border border-line px-3 py-2 ${FOCUS}`}
        >
          Cancel
        </button>
      </div>
    </>
  )
}
