/**
 * A tiny toast queue that lives in the first-load bundle, so any code can raise a toast at once
 * while the toaster itself (Radix) is fetched only when the first toast appears.
 */
export interface ToastMessage {
  id: number
  title: string
  description: string
  variant: 'default' | 'destructive'
}

type Listener = () => void

let toasts: readonly ToastMessage[] = []
let nextId = 1
const listeners = new Set<Listener>()
const NO_TOASTS: readonly ToastMessage[] = []

function emit() {
  for (const listener of listeners) listener()
}

export function showToast(message: Omit<ToastMessage, 'id'>): number {
  const id = nextId++
  toasts = [...toasts, { ...message, id }]
  emit()
  return id
}

export function dismissToast(id: number) {
  toasts = toasts.filter((toast) => toast.id !== id)
  emit()
}

export function subscribeToToasts(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function currentToasts(): readonly ToastMessage[] {
  return toasts
}

/** The server and the first client render agree: no toasts yet. */
export function serverToasts(): readonly ToastMessage[] {
  return NO_TOASTS
}
