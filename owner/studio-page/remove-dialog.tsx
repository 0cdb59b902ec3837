import { ConfirmDialog } from './confirm-dialog'

/** Asks before erasing an address from the waitlist. */
export function RemoveDialog(props: {
  email: string | undefined
  busy: boolean
  onConfirm(): void
  onCancel(): void
}) {
  return (
    <ConfirmDialog
      id="remove"
      open={Boolean(props.email)}
      heading="Remove this address?"
      confirm="Remove"
      busy={props.busy}
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
    >
      <strong className="break-all">{props.email}</strong> will be erased from the waitlist. This cannot be
      undone; the person may sign up again.
    </ConfirmDialog>
  )
}
