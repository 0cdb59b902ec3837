import { dismissToast, type ToastMessage } from '../lib/toast-store'

/**
 * The toasts' words without the toaster: shown when its chunk cannot load (a redeploy replaced
 * the page's scripts), so a failed submit still says what the specification says it should.
 */
export function ToastFallback({ toasts }: { toasts: readonly ToastMessage[] }) {
  return (
    <section
      aria-label="Notifications"
      className="fixed bottom-0 right-0 z-50 flex w-full max-w-sm flex-col gap-2 p-4"
    >
      {toasts.map((toast) => (
        <div
          key={toast.id}
          role={toast.variant === 'destructive' ? 'alert' : 'status'}
          className={`relative rounded-md border p-4 pr-8 shadow-lg ${
            toast.variant === 'destructive'
              ? 'border-red-700 bg-red-700 text-white'
              : 'border-line bg-panel text-ink'
          }`}
        >
          <p className="text-sm font-semibold">{toast.title}</p>
          <p className="text-sm opacity-90">{toast.description}</p>
          <button
            type="button"
            aria-label="Close"
            onClick={() => dismissToast(toast.id)}
            className="absolute right-2 top-2 rounded-md p-1 opacity-70 hover:opacity-100"
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ))}
    </section>
  )
}
