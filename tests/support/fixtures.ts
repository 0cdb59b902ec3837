import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'vitest'
import type { SmtpSinkOptions } from '../../harness/smtp-sink'
import { startTestServer, type TestServerOptions } from '../../harness/test-server'
import { type CliResult, runCli } from '../../harness/waitlist-cli'
import { entryStatus } from './entry-status'
import { startMailTestServer } from './mail-test-server'
import { type ReceiverMode, startWebhookReceiver } from './webhook-receiver'

/** `npm run waitlist -- …args` against the file's server's database. */
export type Cli = (...args: string[]) => Promise<CliResult>

/** A folder of the file's own for the files its tests write (CSV lists, exports), removed after. */
export interface Scratch {
  dir: string
  /** Writes `content` to `name` in the folder; returns its path. */
  file(name: string, content: string | Buffer): Promise<string>
}

/** Every test of ours: `scratch`, made for the first test that asks for it. */
// biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's needs from this pattern.
const base = test.extend('scratch', { scope: 'file' }, async ({}, { onCleanup }): Promise<Scratch> => {
  const dir = await mkdtemp(join(tmpdir(), 'lab-test-'))
  onCleanup(() => rm(dir, { recursive: true, force: true }))
  return {
    dir,
    async file(name, content) {
      const path = join(dir, name)
      await writeFile(path, content)
      return path
    },
  }
})

/** Tests that need no server, only `scratch`. */
export const scratchTest = base

/**
 * The tests of one file, on one real server started for the first test that asks for it and
 * stopped after the file's last (Vitest's file-scoped fixtures): `server`, and `cli` on its
 * database, both also in `it.beforeAll`.
 */
export function serverTest(options: TestServerOptions = {}) {
  return (
    base
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's needs from this pattern.
      .extend('server', { scope: 'file' }, async ({}, { onCleanup }) => {
        const server = await startTestServer(options)
        onCleanup(() => server.cleanup())
        return server
      })
      .extend('cli', { scope: 'file' }, async ({ server }): Promise<Cli> => {
        return (...args) => runCli(server.env, ...args)
      })
  )
}

/** The settings of a server that asks each new signup to confirm, mails at once, and limits no one. */
export const CONFIRMING: Record<string, string> = {
  CONFIRM_SIGNUPS: 'true',
  MAIL_PER_MINUTE: '0',
  RATE_LIMIT_PER_MINUTE: '0',
}

export interface MailTestOptions {
  /** How the file's SMTP server answers (a refusal, a delay, AUTH). */
  sink?: SmtpSinkOptions
  /**
   * The lab's webhook: SIGNUP_WEBHOOK_URL is the file's receiver, which answers as this says
   * (204 by default). Without it the server has no webhook and the receiver stays idle.
   */
  webhook?: ReceiverMode | true
}

/**
 * The tests of one file, on one server that mails through a real SMTP server of its own
 * (startMailTestServer, `env` on top): `mail`, and its parts as `server`, `sink` and `database`;
 * `receiver` (the webhook receiver); `cli` and `statusOf` on its database. Each is started once
 * for the file.
 */
export function mailTest(env: Record<string, string>, options: MailTestOptions = {}) {
  return (
    base
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's needs from this pattern.
      .extend('receiver', { scope: 'file' }, async ({}, { onCleanup }) => {
        const mode = options.webhook === true ? undefined : options.webhook
        const receiver = await startWebhookReceiver(mode)
        onCleanup(() => receiver.close())
        return receiver
      })
      .extend('mail', { scope: 'file' }, async ({ receiver }, { onCleanup }) => {
        const webhook: Record<string, string> = options.webhook ? { SIGNUP_WEBHOOK_URL: receiver.url } : {}
        const mail = await startMailTestServer({ ...webhook, ...env }, options.sink)
        onCleanup(() => mail.close())
        return mail
      })
      .extend('server', { scope: 'file' }, async ({ mail }) => mail.server)
      .extend('sink', { scope: 'file' }, async ({ mail }) => mail.sink)
      .extend('database', { scope: 'file' }, async ({ mail }) => mail.database)
      .extend('cli', { scope: 'file' }, async ({ mail }): Promise<Cli> => {
        return (...args) => runCli(mail.server.env, ...args)
      })
      .extend('statusOf', { scope: 'file' }, async ({ mail }) => {
        return (email: string) => entryStatus(mail.database.db, email)
      })
  )
}
