import { useState } from 'react'
import { failingChecks } from '../../contract/failing-checks'
import type { CheckLine } from '../../server/admin/sending'
import { ConfirmDialog } from './confirm-dialog'
import { PreflightLines } from './preflight-panel'
import { useMay } from './role'
import { FOCUS } from './styles'

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
      <ConfirmDialog
        id="anyway"
        open={asking}
        heading="Send although the preflight fails?"
        confirm="Send anyway"
        busy={props.busy}
        onConfirm={() => {
          setAsking(false)
          props.onSendAnyway()
        }}
        onCancel={() => setAsking(false)}
      >
        Failing: <strong>{failingChecks(props.lines)}</strong>. Receiving servers may put these invitations in
        spam or refuse them. The record keeps that you sent anyway and which checks you skipped.
      </ConfirmDialog>
    </div>
  )
}
