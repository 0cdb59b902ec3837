import { useEffect, useState } from 'react'
import type { CheckLine } from '../../server/admin/sending'
import { fetchInvitePreview, type InvitePreview, PreflightHeld, queueInvitations } from './api'
import type { ListView } from './filters'
import { queuedText } from './invite-preview'

const PREPARING = 'Preparing the preview…'

/**
 * What both invite panels (the next N, the rows ticked) keep while they call the studio's server:
 * whether a call is on its way, the last outcome's line, its error, and the checks of a failing
 * preflight that held the last batch; `act` runs one call.
 */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [status, setStatus] = useState('')
  const [error, setError] = useState('')
  const [held, setHeld] = useState<CheckLine[]>()
  const act = async (work: () => Promise<void>) => {
    setBusy(true)
    setError('')
    setHeld(undefined)
    try {
      await work()
    } catch (reason) {
      setError(String((reason as Error).message ?? reason))
      if (reason instanceof PreflightHeld) setHeld(reason.lines)
    } finally {
      setBusy(false)
    }
  }
  return { busy, status, setStatus, error, held, act }
}

/**
 * The invite panel's state: whether a preview is open (its frame loads while the figures are read),
 * the preview's figures, the last outcome, and the two calls, with the filters and the order the list shows.
 */
export function useInvite(view: ListView, onQueued: () => void) {
  const [open, setOpen] = useState(false)
  const [preview, setPreview] = useState<InvitePreview>()
  const { busy, status, setStatus, error, held, act } = useAction()
  // The frame is asked for at once, beside the figures, and a line says the rest is on its way.
  const showPreview = (count: number) => {
    setPreview(undefined)
    setOpen(true)
    setStatus(PREPARING)
    void act(async () => {
      try {
        setPreview(await fetchInvitePreview(count, view))
      } catch (reason) {
        setOpen(false)
        throw reason
      } finally {
        setStatus((status) => (status === PREPARING ? '' : status))
      }
    })
  }
  const close = () => {
    setOpen(false)
    setPreview(undefined)
  }
  // A preview is of the filters and the order shown when it was asked for: a change of them asks again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: any change of the view closes it
  useEffect(() => {
    setOpen(false)
    setPreview(undefined)
  }, [view])
  // `anyway`: an owner's "Send anyway" past the preflight that held the batch.
  const send = (shown: InvitePreview, anyway = false) =>
    act(async () => {
      const { queued, perMinute, waitsForSender } = await queueInvitations(shown.count, view, anyway)
      setStatus(queuedText(queued, perMinute, waitsForSender))
      close()
      onQueued()
    })
  return { open, preview, busy, status, error, held, showPreview, send, cancel: close }
}
