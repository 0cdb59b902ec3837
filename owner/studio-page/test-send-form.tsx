import { type FormEvent, useState } from 'react'
import { queueTestSend } from './api'
import { FOCUS } from './styles'

/**
 * "Send me a test", beside the preview: the invitation exactly as the next invitee gets it, to the
 * owner's own address. Nobody is added or invited; the test's links change nothing.
 */
export function TestSendForm() {
  const [email, setEmail] = useState('')
  const [busy, setBusy] = useState(false)
  const [said, setSaid] = useState({ status: '', error: '' })
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    try {
      const { senderConfigured, placeholder } = await queueTestSend(email)
      const when = senderConfigured
        ? 'the running server sends it now'
        : 'it goes once a server with SMTP_URL runs'
      const status = `A test is queued for ${email}; ${when}. Its links change nothing.`
      setSaid({ status: placeholder ? `${status} ${placeholder}` : status, error: '' })
    } catch (reason) {
      setSaid({ status: '', error: String((reason as Error).message ?? reason) })
    } finally {
      setBusy(false)
    }
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor="test-send-email" className="block text-sm font-medium">
          Your address, for a test
        </label>
        <input
          id="test-send-email"
          type="email"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          className={`mt-1 w-72 rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
        />
      </div>
      <button
        type="submit"
        disabled={busy}
        className={`rounded border border-line px-3 py-2 font-medium ${FOCUS}`}
      >
        Send me a test
      </button>
      {said.error && (
        <p role="alert" className="w-full rounded border border-danger bg-danger-soft p-3 text-danger">
          {said.error}
        </p>
      )}
      <p aria-live="polite" className={said.status ? 'w-full text-accent' : 'sr-only'}>
        {said.status}
      </p>
    </form>
  )
}
