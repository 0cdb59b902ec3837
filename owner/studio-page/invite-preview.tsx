import { INVITE_PREVIEW_URL, type InvitePreview } from './api'
import { FOCUS } from './styles'

/**
 * What both invitation previews show, "Invite the next N" and "Invite selected": the message's
 * frame, the notes on why it may not leave yet, and Send or Cancel.
 */

export const people = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'person' : 'people'}`

/** The invitation's HTML part, as the first person will see it. */
export function PreviewFrame() {
  return (
    <iframe
      src={INVITE_PREVIEW_URL}
      title="The invitation as it will look"
      // An origin of its own: nothing in the frame could reach the studio's token. Its own CSP
      // (owner/studio-server/studio-invite.ts) runs no script; allow-scripts only lets a checker
      // such as axe look inside, as it does on the page.
      sandbox="allow-scripts"
      className="h-96 w-full rounded border border-line"
    />
  )
}

/** The first few who will be invited, and how many more. */
export function Recipients({ preview }: { preview: Pick<InvitePreview, 'count' | 'recipients'> }) {
  const more = preview.count - preview.recipients.length
  if (preview.recipients.length === 0) return null
  return (
    <ul aria-label="Who will be invited" className="text-sm text-soft">
      {preview.recipients.map((recipient) => (
        <li key={recipient.email} className="break-all">
          {recipient.email}
        </li>
      ))}
      {more > 0 && <li>and {more.toLocaleString('en-US')} more</li>}
    </ul>
  )
}

/** From and Subject, as the server will send them. */
export function Headers({ preview }: { preview: Pick<InvitePreview, 'from' | 'subject'> }) {
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 text-sm">
      <dt className="font-medium">From</dt>
      <dd className="break-all">{preview.from ?? 'none yet: the server that sends has no MAIL_FROM'}</dd>
      <dt className="font-medium">Subject</dt>
      <dd>{preview.subject}</dd>
    </dl>
  )
}

type Sendable = Pick<InvitePreview, 'count' | 'placeholder' | 'settingsUnknown' | 'cannotSend'>

export function SendButtons(props: { preview: Sendable; busy: boolean; onSend(): void; onCancel(): void }) {
  const { preview } = props
  return (
    <>
      {/* Notes, not errors: nothing was attempted, and queuing works without a sender. */}
      {[preview.placeholder, preview.settingsUnknown, preview.cannotSend].map(
        (note) =>
          note && (
            <p key={note} className="rounded border border-line p-3 text-sm">
              {note}
            </p>
          ),
      )}
      <div className="flex gap-2">
        <button
          type="button"
          disabled={props.busy || preview.count === 0 || preview.placeholder !== null}
          onClick={props.onSend}
          className={`rounded bg-button px-3 py-2 font-medium text-button-ink disabled:opacity-60 ${FOCUS}`}
        >
          Send {preview.count === 1 ? '1 invitation' : `${preview.count.toLocaleString('en-US')} invitations`}
        </button>
        <button
          type="button"
          onClick={props.onCancel}
          className={`rounded border border-line px-3 py-2 ${FOCUS}`}
        >
          Cancel
        </button>
      </div>
    </>
  )
}

/** What the page says once invitations are queued. */
export function queuedText(queued: number, perMinute: number, waitsForSender: boolean): string {
  const pace = perMinute > 0 ? `at most ${perMinute} a minute` : 'as fast as the mail server takes them'
  const noun = queued === 1 ? 'invitation' : 'invitations'
  return waitsForSender
    ? `Queued ${queued} ${noun}; they go out once a server with SMTP_URL runs.`
    : `Queued ${queued} ${noun}; the server sends them ${pace}.`
}

/** A call's error (an alert), and its outcome's line (a live region, not role=status: the page's one status line is the removal's). */
export function InviteOutcome({ error, status }: { error: string; status: string }) {
  return (
    <>
      {error && (
        <p role="alert" className="mt-3 rounded border border-danger bg-danger-soft p-3 text-danger">
          {error}
        </p>
      )}
      <p aria-live="polite" className={status ? 'mt-3 text-accent' : 'sr-only'}>
        {status}
      </p>
    </>
  )
}
