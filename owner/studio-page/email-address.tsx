/**
 * An address that reads well in a narrow column: on a phone the name and the '@domain' each take
 * one line, cut with an ellipsis if they must be (the whole address is the title, and the row's
 * Remove button names it); on wider screens it wraps only at the '@'.
 */
export function EmailAddress({ email }: { email: string }) {
  const at = email.lastIndexOf('@')
  const name = at > 0 ? email.slice(0, at) : email
  const domain = at > 0 ? email.slice(at) : ''
  return (
    <span title={email} className="block min-w-0">
      <span className="block truncate sm:inline sm:whitespace-normal sm:[overflow-wrap:anywhere]">
        {name}
      </span>
      {/* A break opportunity at the '@' for wide screens; none between the phone's two lines. */}
      <wbr className="max-sm:hidden" />
      <span className="block truncate sm:inline sm:whitespace-normal sm:[overflow-wrap:anywhere]">
        {domain}
      </span>
    </span>
  )
}
