import * as Toast from '@radix-ui/react-toast'
import { TOAST_CLOSE_CLASS, TOAST_VARIANT_CLASS, TOAST_VIEWPORT_CLASS } from '../../contract/toast-look'
import { dismissToast, type ToastMessage } from '../lib/toast-store'

export function Toaster({ toasts }: { toasts: readonly ToastMessage[] }) {
  return (
    <Toast.Provider swipeDirection="right" duration={5000}>
      {toasts.map((toast) => (
        <Toast.Root
          key={toast.id}
          data-variant={toast.variant}
          onOpenChange={(open) => {
            if (!open) dismissToast(toast.id)
          }}
          className={`group pointer-events-auto relative flex w-full items-start justify-between gap-4 rounded-md border p-4 pr-8 shadow-lg ${TOAST_VARIANT_CLASS[toast.variant]}`}
        >
          <div className="grid gap-1">
            <Toast.Title className="text-sm font-semibold">{toast.title}</Toast.Title>
            <Toast.Description className="text-sm opacity-90">{toast.description}</Toast.Description>
          </div>
          <Toast.Close aria-label="Close" className={TOAST_CLOSE_CLASS}>
            <span aria-hidden="true">×</span>
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport className={`${TOAST_VIEWPORT_CLASS} m-0 list-none outline-none`} />
    </Toast.Provider>
  )
}
