import { useEffect, useState } from 'react'
import { fetchSelectedPreview, queueSelected, type Refused, type SelectedPreview } from './choose-api'
import {
  Headers,
  InviteOutcome,
  PreviewFrame,
  people,
  queuedText,
  Recipients,
  SendButtons,
} from './invite-preview'
import { HeldByPreflight } from './send-anyway'
import { FOCUS } from './styles'
import { useAction } from './use-invite'

/** As many as the studio's server takes at once (owner/studio-server/studio-invite-selected.ts). */
export const MAX_SELECTED = 1_000
const count = (n: number) => n.toLocaleString('en-US')

/**
 * "Invite selected": the rows ticked, on any page and under any filter, invited as `invite EMAIL…`
 * invites them, after the same preview as "Invite the next N". Only waiting entries are invited;
 * the preview names the others and why.
 */
export function InviteSelected(props: {
  selected: readonly string[]
  /** The addresses on the page shown, for "All on this page". */
  onPage: readonly string[]
  onSelectPage(on: boolean): void
  onClear(): void
  onQueued(): void
}) {
  const { selected } = props
  const invite = useInviteSelected(selected, props.onClear, props.onQueued)
  return (
    <section aria-labelledby="selected-heading" className="mt-4 rounded border border-line p-3">
      <h3 id="selected-heading" className="sr-only">
        Invite selected
      </h3>
      <SelectionBar {...props} busy={invite.busy} onInvite={invite.showPreview} />
      <InviteOutcome error={invite.error} status={invite.status} />
      {invite.preview && (
        <SelectedPreviewView
          preview={invite.preview}
          busy={invite.busy}
          onSend={() => invite.send()}
          onCancel={invite.cancel}
        />
      )}
      {invite.preview && invite.held && (
        <HeldByPreflight lines={invite.held} busy={invite.busy} onSendAnyway={() => invite.send(true)} />
      )}
    </section>
  )
}

/** "All on this page", how many are ticked, and the button that says so. */
function SelectionBar(props: {
  selected: readonly string[]
  onPage: readonly string[]
  busy: boolean
  onSelectPage(on: boolean): void
  onInvite(): void
  onClear(): void
}) {
  const { selected, onPage } = props
  const allOnPage = onPage.length > 0 && onPage.every((email) => selected.includes(email))
  const tooMany = selected.length > MAX_SELECTED
  return (
    <>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            checked={allOnPage}
            disabled={onPage.length === 0}
            onChange={(event) => props.onSelectPage(event.target.checked)}
            className={FOCUS}
          />
          All on this page
        </label>
        <span className="tabular-nums">{count(selected.length)} selected</span>
        <button
          type="button"
          disabled={selected.length === 0 || tooMany || props.busy}
          onClick={props.onInvite}
          className={`rounded bg-button px-3 py-1.5 font-medium text-button-ink disabled:opacity-60 ${FOCUS}`}
        >
          {selected.length === 0 ? 'Invite selected' : `Invite ${count(selected.length)} selected`}
        </button>
        <button
          type="button"
          disabled={selected.length === 0}
          onClick={props.onClear}
          className={`rounded border border-line px-3 py-1.5 disabled:opacity-60 ${FOCUS}`}
        >
          Clear selection
        </button>
      </div>
      {tooMany && <p className="mt-2 text-sm">At most {count(MAX_SELECTED)} at once: untick some.</p>}
    </>
  )
}

function SelectedPreviewView(props: {
  preview: SelectedPreview
  busy: boolean
  onSend(): void
  onCancel(): void
}) {
  const { preview } = props
  const gone = preview.unknown > 0 ? ` ${count(preview.unknown)} no longer on the list.` : ''
  return (
    <div className="mt-4 space-y-3">
      <h4 className="font-semibold">
        {people(preview.count)} will be invited, of {count(preview.requested)} selected
      </h4>
      <Recipients preview={preview} />
      {(preview.refused.length > 0 || gone) && <LeftAlone refused={preview.refused} gone={gone} />}
      <Headers preview={preview} />
      <PreviewFrame />
      <SendButtons preview={preview} busy={props.busy} onSend={props.onSend} onCancel={props.onCancel} />
    </div>
  )
}

const SHOWN = 10

/** The selected entries that will not be invited, with the CLI's reason, the first few of them. */
function LeftAlone({ refused, gone }: { refused: readonly Refused[]; gone: string }) {
  return (
    <div className="text-sm">
      <p>
        Left alone: {count(refused.length)} not waiting.{gone}
      </p>
      <ul aria-label="Left alone" className="mt-1 list-disc pl-5 text-soft">
        {refused.slice(0, SHOWN).map((entry) => (
          <li key={entry.email} className="[overflow-wrap:anywhere]">
            {entry.email} {entry.reason}
          </li>
        ))}
        {refused.length > SHOWN && <li>and {count(refused.length - SHOWN)} more</li>}
      </ul>
    </div>
  )
}

/** The preview of the selection (closed when the selection changes), the sending, and what came of it. */
function useInviteSelected(selected: readonly string[], clear: () => void, onQueued: () => void) {
  const [preview, setPreview] = useState<SelectedPreview>()
  const { busy, status, setStatus, error, held, act } = useAction()
  // A preview is of the rows ticked when it was asked for: a change of them asks again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: any change of the selection closes it
  useEffect(() => setPreview(undefined), [selected])
  const showPreview = () =>
    act(async () => {
      setStatus('')
      setPreview(await fetchSelectedPreview(selected))
    })
  // `anyway`: an owner's "Send anyway" past the preflight that held the batch.
  const send = (anyway = false) =>
    act(async () => {
      const done = await queueSelected(selected, anyway)
      const left = done.refused.length + done.unknown
      const also = left > 0 ? ` ${count(left)} left alone (not waiting, or no longer on the list).` : ''
      setStatus(`${queuedText(done.queued, done.perMinute, done.waitsForSender)}${also}`)
      setPreview(undefined)
      clear()
      onQueued()
    })
  return { preview, busy, status, error, held, showPreview, send, cancel: () => setPreview(undefined) }
}
