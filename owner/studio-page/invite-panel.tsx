import { type FormEvent, useState } from 'react'
import type { InvitePreview } from './api'
import type { ListView } from './filters'
import { Headers, InviteOutcome, PreviewFrame, people, Recipients, SendButtons } from './invite-preview'
import { PreflightPanel } from './preflight-panel'
import { HeldByPreflight } from './send-anyway'
import { FOCUS } from './styles'
import { TestSendForm } from './test-send-form'
import { useInvite } from './use-invite'

/**
 * "Invite the next N" of the entries the list's filters match (all of them without any), the first
 * N in the order the table shows them, as `invite --next N FILTER --sort COLUMN` picks them: the
 * count, the order, the message and the last deliverability preflight are shown first, and nothing
 * is queued until the owner says so; the running server then sends at MAIL_PER_MINUTE.
 */
export function InvitePanel(props: {
  view: ListView
  /** The table's order in words: "newest first", "by organisation, A to Z". */
  order: string
  /** How many entries the list shows with these filters, once counted; undefined with a search. */
  shown: number | undefined
  filtered: boolean
  onQueued(): void
}) {
  const invite = useInvite(props.view, props.onQueued)
  const { preview } = invite
  const { order } = props
  const among = props.filtered
    ? props.shown === undefined
      ? `the first the filters above match, ${order}; the search box does not narrow it`
      : `the first of the ${props.shown.toLocaleString('en-US')} shown, ${order}`
    : order
  return (
    <section aria-labelledby="invite-heading" className="mt-4 rounded border border-line p-3">
      <h3 id="invite-heading" className="font-semibold">
        Invite the next N
      </h3>
      <CountForm busy={invite.busy} among={among} onPreview={invite.showPreview} />
      <InviteOutcome error={invite.error} status={invite.status} />
      {invite.open && (
        <div className="mt-4 space-y-3">
          {preview && <PreviewSummary preview={preview} order={order} />}
          <PreviewFrame />
          <TestSendForm />
          {/* Read as the preview opens, and again once a send's own check held it; never on the first page. */}
          <PreflightPanel heading="h4" since={invite.held} />
          {preview && (
            <SendButtons
              preview={preview}
              busy={invite.busy}
              onSend={() => invite.send(preview)}
              onCancel={invite.cancel}
            />
          )}
          {preview && invite.held && (
            <HeldByPreflight
              lines={invite.held}
              busy={invite.busy}
              onSendAnyway={() => invite.send(preview, true)}
            />
          )}
        </div>
      )}
    </section>
  )
}

function CountForm(props: { busy: boolean; among: string; onPreview(count: number): void }) {
  const { busy, onPreview } = props
  const [count, setCount] = useState('10')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onPreview(Number(count))
  }
  return (
    <form onSubmit={submit} className="mt-3 flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor="invite-count" className="block text-sm font-medium">
          People to invite ({props.among})
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

const number = (n: number) => n.toLocaleString('en-US')

/** How many, of how many shown, in which order, the first few, From and Subject. */
function PreviewSummary({ preview, order }: { preview: InvitePreview; order: string }) {
  // "the next 10 of the 57 shown, by organisation, A to Z", and how many of those may be invited, when not all.
  const waiting = preview.waiting < preview.shown ? ` (${number(preview.waiting)} of them waiting)` : ''
  const of = preview.filtered
    ? `: the next ${number(preview.count)} of the ${number(preview.shown)} shown, ${order}${waiting}`
    : preview.count < preview.requested
      ? `, ${order} (only ${number(preview.waiting)} waiting)`
      : `, ${order}`
  return (
    <>
      <h4 className="font-semibold">
        {people(preview.count)} will be invited{of}
      </h4>
      <Recipients preview={preview} />
      <Headers preview={preview} />
    </>
  )
}
