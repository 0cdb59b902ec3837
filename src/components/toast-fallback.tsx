import { TOAST_CLOSE_CLASS, TOAST_VARIANT_CLASS, TOAST_VIEWPORT_CLASS } from '../../contract/toast-look'
import { dismissToast, type ToastMessage } from '../lib/toast-store'

/**
 * The toasts' words without the toaster: shown when its chunk cannot load (a redeploy replaced
 * the page's scripts), so a failed submit still says what the specification says it should.
 */
export function ToastFallback({ toasts }: { toasts: readonly ToastMessage[] }) {
  return (
    <section aria-label="Notifications" className={TOAST_VIEWPORT_CLASS}>
      {toasts.map((toast) => (
        <div
          key={toast.id}
          role={toast.variant === 'destructive' ? 'alert' : 'status'}
          className={`relative rounded-md border p-4 pr-8 shadow-lg ${TOAST_VARIANT_CLASS[toast.variant]}`}
        >
          <p className="text-sm font-semibold">{toast.title}</p>
          <p className="text-sm opacity-90">{toast.description}</p>
          <button
            type="button"
            aria-label="Close"
            onClick={() => dismissToast(toast.id)}
            className={TOAST_CLOSE_CLASS}
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ))}
    </section>
  )
}
