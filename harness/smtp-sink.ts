import type { AddressInfo } from 'node:net'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer, type SMTPServerAddress } from 'smtp-server'

/** One message the sink accepted (250 after DATA). */
export interface ReceivedMail {
  to: string[]
  raw: Buffer
  /** Date.now() when it was accepted. */
  at: number
}

export interface SmtpSinkOptions {
  /** Each message is accepted this long after its data has arrived (a slow server). */
  delayMs?: number
  /**
   * A reply code for RCPT TO of this address (550: unknown user, 450: try later), or a code and its
   * text, or undefined to accept it.
   */
  rcptReply?: (address: string) => number | { code: number; text: string } | undefined
  /** Credentials the sink requires (AUTH PLAIN/LOGIN); without them, no AUTH is offered. */
  auth?: { user: string; pass: string }
  /** Keeps only the count and the recipients, not the bytes (the bench: 10,000 messages). */
  countOnly?: boolean
}

export interface SmtpSink {
  port: number
  /** smtp://[user:pass@]127.0.0.1:port */
  url: string
  /** Every accepted message, in order. */
  received: ReceivedMail[]
  /** Accepted messages per recipient (lower-cased). */
  countFor(address: string): number
  /** Messages the sink refused at RCPT TO, by address. */
  refused: string[]
  /**
   * Holds back the 250 of the next message whose data has arrived, until `release()` accepts it:
   * its sender is mid-send, and who it is can be told by the port its connection comes from.
   */
  holdNext(): Promise<HeldMail>
  /** Credentials tried that were wrong (AUTH failures), as sent. */
  failedLogins: { user: string; pass: string }[]
  parse(mail: ReceivedMail): Promise<ParsedMail>
  waitFor(check: () => boolean, message: string, timeoutMs?: number): Promise<void>
  /** Stops listening and cuts every connection (the SMTP server is down). */
  close(): Promise<void>
  /** Listens again on the same port. */
  reopen(): Promise<void>
}

/** A message whose data has arrived and whose acceptance waits for the test. */
export interface HeldMail {
  to: string[]
  /** The sending side's port on 127.0.0.1. */
  remotePort: number
  /** Accepts it, as the SMTP server it stands for would have (whether the sender is still there or not). */
  release(): void
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code })
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 and a free, then fixed, port: it records what it
 * accepts, for the tests to read back with mailparser. No STARTTLS: loopback is plain SMTP.
 */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = []
  const counts = new Map<string, number>()
  const refused: string[] = []
  const failedLogins: { user: string; pass: string }[] = []
  let hold: ((held: HeldMail) => void) | undefined
  const make = () =>
    new SMTPServer({
      disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !options.auth,
      logger: false,
      size: 1024 * 1024,
      onAuth(auth, _session, callback) {
        const { user, pass } = options.auth ?? {}
        if (auth.username === user && auth.password === pass) return callback(null, { user })
        failedLogins.push({ user: auth.username ?? '', pass: auth.password ?? '' })
        callback(smtpError(535, 'Authentication failed'))
      },
      onRcptTo(address: SMTPServerAddress, _session, callback) {
        const reply = options.rcptReply?.(address.address)
        if (reply === undefined) return callback()
        refused.push(address.address)
        if (typeof reply === 'object') return callback(smtpError(reply.code, reply.text))
        callback(smtpError(reply, reply >= 500 ? 'No such user here' : 'Mailbox busy, try again later'))
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => {
          if (!options.countOnly) chunks.push(chunk)
        })
        stream.on('end', () => {
          const accept = () => {
            const to = session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase())
            for (const address of to) counts.set(address, (counts.get(address) ?? 0) + 1)
            received.push({ to, raw: Buffer.concat(chunks), at: Date.now() })
            callback()
          }
          const holding = hold
          hold = undefined
          if (holding)
            holding({
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              remotePort: session.remotePort,
              release: accept,
            })
          else if (options.delayMs) setTimeout(accept, options.delayMs)
          else accept()
        })
      },
    })
  let server = make()
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        // A client that dies mid-session (a killed server) resets its connection: that is the test, not a failure.
        server.on('error', () => {})
        resolve((server.server.address() as AddressInfo).port)
      })
    })
  const port = await listen(0)
  const credentials = options.auth
    ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
    : ''
  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    refused,
    failedLogins,
    countFor: (address) => counts.get(address.toLowerCase()) ?? 0,
    holdNext: () =>
      new Promise<HeldMail>((resolve) => {
        hold = resolve
      }),
    parse: (mail) => simpleParser(mail.raw),
    async waitFor(check, message, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${message}`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        // smtp-server waits for open sessions; a server that went away does not.
        for (const connection of (server as unknown as { connections: Set<{ close(): void }> }).connections)
          connection.close()
        server.close(() => resolve())
      }),
    async reopen() {
      server = make()
      await listen(port)
    },
  }
}
