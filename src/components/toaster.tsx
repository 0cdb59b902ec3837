import * as Toast from '@radix-ui/react-toast'
import { dismissToast, type ToastMessage } from '../lib/toast-store'

const variantClasses: Record<ToastMessage['variant'], string> = {
  default: 'border-line bg-panel text-ink',
  destructive: 'destructive border-red-700 bg-red-700 text-white',
}

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
          className={`group pointer-events-auto relative flex w-full items-start justify-between gap-4 rounded-md border p-4 pr-8 shadow-lg ${variantClasses[toast.variant]}`}
        >
          <div className="grid gap-1">
            <Toast.Title className="text-sm font-semibold">{toast.title}</Toast.Title>
            <Toast.Description className="text-sm opacity-90">{toast.description}</Toast.Description>
          </div>
          <Toast.Close
            aria-label="Close"
            className="absolute right-2 top-2 rounded-md p-1 opacity-70 hover:opacity-100"
          >
            <span aria-hidden="true">×</span>
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport className="fixed bottom-0 right-0 z-50 m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none" />
    </Toast.Provider>
  )
}
