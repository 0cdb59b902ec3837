import { useState } from 'react'
import { fetchInvitePreview, type InvitePreview, queueInvitations } from './api'

/** The invite panel's state: the preview shown, the last outcome, and the two calls. */
export function useInvite(onQueued: () => void) {
  const [preview, setPreview] = useState<InvitePreview>()
  const [busy, setBusy] = useState(false)
  const [status, setStatus] = useState('')
  const [error, setError] = useState('')
  const act = async (work: () => Promise<void>) => {
    setBusy(true)
    setError('')
    try {
      await work()
    } catch (reason) {
      setError(String((reason as Error).message ?? reason))
    } finally {
      setBusy(false)
    }
  }
  const showPreview = (count: number) => {
    setStatus('')
    void act(async () => setPreview(await fetchInvitePreview(count)))
  }
  const send = (shown: InvitePreview) =>
    act(async () => {
      const { queued, perMinute, waitsForSender } = await queueInvitations(shown.count)
      const pace = perMinute > 0 ? `at most ${perMinute} a minute` : 'as fast as the mail server takes them'
      const noun = queued === 1 ? 'invitation' : 'invitations'
      setStatus(
        waitsForSender
          ? `Queued ${queued} ${noun}; they go out once a server with SMTP_URL runs.`
          : `Queued ${queued} ${noun}; the server sends them ${pace}.`,
      )
      setPreview(undefined)
      onQueued()
    })
  return { preview, busy, status, error, showPreview, send, cancel: () => setPreview(undefined) }
}
