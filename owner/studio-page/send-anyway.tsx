import { useState } from 'react'
import type { CheckLine } from '../../server/admin/sending'
import { PreflightLines } from './preflight-panel'
import { useMay } from './role'
import { FOCUS } from './styles'
import { useModal } from './use-modal'

/** The failing checks' names, once each, as the record names them: "DMARC alignment, SPF". */
const names = (lines: readonly CheckLine[]) => [...new Set(lines.map((line) => line.check))].join(', ')

/**
 * A batch the preflight held (409): the checks that hold it, with what to publish, and the way
 * past them. An owner may send anyway, after a confirmation, as `invite --skip-preflight` does;
 * the record keeps who skipped which checks (ADR 124). A member is told an owner may; the server
 * refuses them the same (the route table's row).
 */
export function HeldByPreflight(props: { lines: readonly CheckLine[]; busy: boolean; onSendAnyway(): void }) {
  const mayOwn = useMay('owner')
  const [asking, setAsking] = useState(false)
  return (
    <div className="space-y-2 rounded border border-danger p-3">
      <p className="font-medium">The preflight holds these invitations:</p>
      <PreflightLines lines={props.lines} />
      {mayOwn ? (
        <button
          type="button"
          disabled={props.busy}
          onClick={() => setAsking(true)}
          className={`rounded border border-danger px-3 py-1.5 font-medium text-danger disabled:opacity-60 ${FOCUS}`}
        >
          Send anyway…
        </button>
      ) : (
        <p className="text-sm">Publish what it names and check again; an owner may send anyway.</p>
      )}
      <SendAnywayDialog
        open={asking}
        failing={names(props.lines)}
        busy={props.busy}
        onConfirm={() => {
          setAsking(false)
          props.onSendAnyway()
        }}
        onCancel={() => setAsking(false)}
      />
    </div>
  )
}

/**
 * Asks before sending past a failing preflight. A native modal <dialog>, as the removal's: focus
 * starts on Cancel, its first button, so a stray Enter sends nothing.
 */
function SendAnywayDialog(props: {
  open: boolean
  failing: string
  busy: boolean
  onConfirm(): void
  onCancel(): void
}) {
  const modal = useModal(props.open, props.onCancel)
  return (
    <dialog
      {...modal}
      aria-labelledby="anyway-heading"
      aria-describedby="anyway-description"
      className="m-auto max-w-md rounded-lg border border-line bg-panel p-6 text-ink shadow-xl"
    >
      <h2 id="anyway-heading" className="text-lg font-semibold">
        Send although the preflight fails?
      </h2>
      <p id="anyway-description" className="mt-2 text-soft">
        Failing: <strong>{props.failing}</strong>. Receiving servers may put these invitations in spam or
        refuse them. The record keeps that you sent anyway and which checks you skipped.
      </p>
      <div className="mt-6 flex justify-end gap-2">
        <button
          type="button"
          onClick={props.onCancel}
          className={`rounded border border-line px-3 py-1.5 ${FOCUS}`}
        >
          Cancel
        </button>
        <button
          type="button"
          disabled={props.busy}
          onClick={props.onConfirm}
          className={`rounded bg-red-700 px-3 py-1.5 font-medium text-white disabled:opacity-60 ${FOCUS}`}
        >
          Send anyway
        </button>
      </div>
    </dialog>
  )
}
