/** MAIL_FROM: the sender, as `Name <address>` or a bare address. */
export interface MailFrom {
  /** As the From header carries it. */
  header: string
  address: string
  /** The address's domain: the right part of every Message-ID. */
  domain: string
}

// One address without spaces or angle brackets; the provider checks the rest.
const ADDRESS = /^[^\s<>@"]+@([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+)$/

/** Reads MAIL_FROM, or undefined when it is not `Name <address>` nor an address. */
export function parseMailFrom(value: string): MailFrom | undefined {
  const trimmed = value.trim()
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed)
  const address = (named ? named[2] : trimmed)?.trim() ?? ''
  const match = ADDRESS.exec(address)
  if (!match?.[1]) return undefined
  const name = named?.[1]?.trim().replace(/^"(.*)"$/, '$1')
  if (name && /[\r\n"<>]/.test(name)) return undefined
  return {
    header: name ? `"${name}" <${address}>` : address,
    address,
    domain: match[1].toLowerCase(),
  }
}
