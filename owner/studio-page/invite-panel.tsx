import { type FormEvent, useState } from 'react'
import type { InvitePreview } from './api'
import { Headers, InviteOutcome, PreviewFrame, people, Recipients, SendButtons } from './invite-preview'
import { FOCUS } from './styles'
import { TestSendForm } from './test-send-form'
import { useInvite } from './use-invite'

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
      <InviteOutcome error={invite.error} status={invite.status} />
      {invite.open && (
        <div className="mt-4 space-y-3">
          {preview && <PreviewSummary preview={preview} />}
          <PreviewFrame />
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
  return (
    <>
      <h3 className="font-semibold">
        {people(preview.count)} will be invited{fewer}
      </h3>
      <Recipients preview={preview} />
      <Headers preview={preview} />
    </>
  )
}
