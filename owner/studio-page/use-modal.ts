import { useEffect, useRef } from 'react'

/**
 * A native modal <dialog> driven by state: shown while `open`, and `onDismiss` when the person
 * closes it (Escape, or a form's method="dialog"). The browser keeps focus inside it and gives
 * focus back to the control that opened it.
 *
 * Escape fires `cancel` at once but `close` in a task of its own. The state is cleared on cancel:
 * otherwise an Enter in between asks for the same thing again, React sees no change, and nothing
 * opens. A close that arrives after the dialog was opened again is not this one's dismissal.
 */
export function useModal(open: boolean, onDismiss: () => void) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = ref.current
    if (!element) return
    if (open && !element.open) element.showModal()
    if (!open && element.open) element.close()
  }, [open])
  return {
    ref,
    onCancel: onDismiss,
    onClose: () => {
      if (!ref.current?.open) onDismiss()
    },
  }
}
