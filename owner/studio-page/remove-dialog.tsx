import { useModal } from './use-modal'

/**
 * Asks before erasing. A native modal <dialog>: the browser keeps focus inside it, Escape
 * cancels, and focus starts on Cancel (its first button), so a stray Enter erases nothing.
 */
export function RemoveDialog(props: {
  email: string | undefined
  busy: boolean
  onConfirm(): void
  onCancel(): void
}) {
  const modal = useModal(Boolean(props.email), props.onCancel)
  return (
    <dialog
      {...modal}
      aria-labelledby="remove-heading"
      aria-describedby="remove-description"
      className="m-auto max-w-md rounded-lg border border-line bg-panel p-6 text-ink shadow-xl"
    >
      <h2 id="remove-heading" className="text-lg font-semibold">
        Remove this address?
      </h2>
      <p id="remove-description" className="mt-2 text-soft">
        <strong className="break-all">{props.email}</strong> will be erased from the waitlist. This cannot be
        undone; the person may sign up again.
      </p>
      <div className="mt-6 flex justify-end gap-2">
        <button
          type="button"
          onClick={props.onCancel}
          className="rounded border border-line px-3 py-1.5 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
        >
          Cancel
        </button>
        <button
          type="button"
          disabled={props.busy}
          onClick={props.onConfirm}
          className="rounded bg-red-700 px-3 py-1.5 font-medium text-white disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
        >
          Remove
        </button>
      </div>
    </dialog>
  )
}
