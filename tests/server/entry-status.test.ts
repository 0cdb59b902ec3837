import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENTRY_STATUSES, type EntryStatus } from '../../contract/entry-statuses'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import type { Database } from '../../server/db/database'
import { markImport } from '../../server/waitlist/admin/import-staging'
import { changeStatus, type StatusChange, TRANSITIONS } from '../../server/waitlist/entry-status'
import { WEBHOOK_EVENTS } from '../../server/webhooks/delivery-queue'
import { setWebhookEvents } from '../../server/webhooks/webhook-events'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'
import { MAY_RECEIVE } from '../support/who-may-be-mailed'

/**
 * An entry's status has one door (server/waitlist/entry-status.ts): a table of transitions, and one
 * function every change goes through. Walked here row by row, from every status, on a real
 * database; then the bug it closed: a 550 at send time bounced the entry without entry.bounced.
 */
let receiver: WebhookReceiver
let mail: MailTestServer
let db: Database

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  mail = await startMailTestServer(
    { MAIL_PER_MINUTE: '0', SIGNUP_WEBHOOK_URL: receiver.url, RATE_LIMIT_PER_MINUTE: '0' },
    { rcptReply: (address) => (address.startsWith('nobody') ? 550 : undefined) },
  )
  db = mail.database.db
})

afterAll(async () => {
  await mail?.close()
  await receiver?.close()
})

let made = 0

/** An entry in `status`, with one pending invitation and one pending confirmation, not yet due. */
async function entryIn(status: EntryStatus): Promise<string> {
  made += 1
  return db.transaction(async (tx) => {
    await markImport(tx)
    const [row] = await tx.query<{ id: string }>(
      'insert into public.waitlist (email) values ($1) returning id::text as id',
      [`walk-${made}@example.com`],
    )
    const id = (row as { id: string }).id
    if (status !== 'waiting')
      await tx.query('insert into private.entry_status (waitlist_id, status) values ($1::bigint, $2)', [
        id,
        status,
      ])
    await tx.query(
      `insert into private.mail_outbox (waitlist_id, kind, priority, message_domain, run_at)
       select $1::bigint, kind, 1, 'example.com', now() + interval '1 day'
         from unnest(array['invitation', 'confirmation']) as kind`,
      [id],
    )
    return id
  })
}

interface Seen {
  status: EntryStatus
  stamped: boolean
  pending: string[]
  events: string[]
}

async function seen(id: string, stamp: string): Promise<Seen> {
  const [row] = await db.query<Seen>(
    `select coalesce(s.status, 'waiting') as status, s.${stamp} is not null as stamped,
            array(select kind from private.mail_outbox o where o.waitlist_id = w.id and o.status = 'pending' order by kind) as pending,
            array(select event from private.webhook_deliveries d where d.waitlist_id = w.id and event <> 'waitlist.signup' order by id) as events
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id where w.id = $1::bigint`,
    [id],
  )
  return row as Seen
}

const BOTH = ['confirmation', 'invitation'] as const

/** What stays pending of BOTH once an entry is in `status`: what the rule allows, less what the change replaces. */
const pendingIn = (status: EntryStatus, replaces?: string) =>
  BOTH.filter((kind) => MAY_RECEIVE[status].includes(kind) && kind !== replaces)

describe('the table of transitions, walked from every status', () => {
  beforeAll(() => setWebhookEvents(db, WEBHOOK_EVENTS))

  for (const change of Object.keys(TRANSITIONS) as StatusChange[]) {
    it(`${change}: moves the statuses it lists, with its date, the mail the rule no longer allows cancelled, and its webhook; leaves the others`, async () => {
      const { from, to, stamp, replaces, webhook } = TRANSITIONS[change]
      for (const status of ENTRY_STATUSES) {
        const id = await entryIn(status)
        const changed = await db.transaction((tx) => changeStatus(tx, change, [id]))
        const after = await seen(id, stamp)
        if (from.includes(status)) {
          expect(changed, `${change} from ${status}`).toEqual([id])
          expect(after).toEqual({
            status: to,
            stamped: true,
            pending: pendingIn(to, replaces),
            events: webhook ? [webhook] : [],
          })
        } else {
          expect(changed, `${change} from ${status}`).toEqual([])
          expect(after).toEqual({ status, stamped: false, pending: [...BOTH], events: [] })
        }
      }
    })
  }

  it('a narrower list from the caller (invite without --resend) leaves the rest of the row alone', async () => {
    const [waiting, invited] = [await entryIn('waiting'), await entryIn('invited')]
    const changed = await db.transaction((tx) =>
      changeStatus(tx, 'invite', [waiting, invited], { only: ['waiting'] }),
    )
    expect(changed).toEqual([waiting])
    expect((await seen(invited, 'invited_at')).pending).toEqual([...BOTH])
  })
})

describe('a bounce found at send time', () => {
  it('makes the entry bounced and sends entry.bounced, as a provider bounce does', async () => {
    const email = 'nobody.here@example.com'
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    const invited = await runCli({ DATA_DIR: mail.server.dataDir }, 'invite', email, '--wait')
    expect(`${invited.stdout}${invited.stderr}`).toMatch(/bounced/i)
    const eventsOf = () =>
      receiver
        .delivered()
        .filter(({ body }) => (body.data as { email?: string }).email === email)
        .map(({ body }) => body.type)
    await receiver.waitFor(() => eventsOf().includes('entry.bounced'), 'entry.bounced delivered')
    expect(mail.sink.refused).toContain(email)
    expect(eventsOf().sort()).toEqual(['entry.bounced', 'waitlist.signup'])
    const [row] = await db.query<{ status: string }>(
      `select s.status from private.entry_status s join public.waitlist w on w.id = s.waitlist_id where w.email = $1`,
      [email],
    )
    expect(row?.status).toBe('bounced')
  })
})
