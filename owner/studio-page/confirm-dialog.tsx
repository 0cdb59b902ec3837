import type { ReactNode } from 'react'
import { FOCUS } from './styles'
import { useModal } from './use-modal'

/**
 * Asks before a step that cannot be taken back (erasing an address, sending past a failing
 * preflight). A native modal <dialog>: the browser keeps focus inside it, Escape cancels, and focus
 * starts on Cancel, its first button, so a stray Enter does nothing.
 */
export function ConfirmDialog(props: {
  /** Names the heading and the description for assistive technology; unique on the page. */
  id: string
  open: boolean
  heading: string
  confirm: string
  busy: boolean
  onConfirm(): void
  onCancel(): void
  children: ReactNode
}) {
  const modal = useModal(props.open, props.onCancel)
  return (
    <dialog
      {...modal}
      aria-labelledby={`${props.id}-heading`}
      aria-describedby={`${props.id}-description`}
      className="m-auto max-w-md rounded-lg border border-line bg-panel p-6 text-ink shadow-xl"
    >
      <h2 id={`${props.id}-heading`} className="text-lg font-semibold">
        {props.heading}
      </h2>
      <p id={`${props.id}-description`} className="mt-2 text-soft">
        {props.children}
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
          {props.confirm}
        </button>
      </div>
    </dialog>
  )
}
