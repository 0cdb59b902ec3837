import type { Queryable } from '../../db/database'

/** The database-wide mail switches, written by each server at start-up (the last to start decides). */
export interface MailSettings {
  /** New signups get a confirmation message and the status `unconfirmed` (the insert trigger reads it). */
  confirmSignups: boolean
  /** MAIL_FROM's domain, for the Message-ID of confirmations the trigger queues. */
  messageDomain: string
  /** A server that can send (SMTP_URL set) has started on this database. */
  senderConfigured: boolean
}

export async function writeMailSettings(db: Queryable, settings: MailSettings): Promise<void> {
  await db.query(
    `insert into private.mail_settings (singleton, confirm_signups, message_domain, sender_configured)
     values (true, $1, $2, $3)
     on conflict (singleton) do update
       set confirm_signups = excluded.confirm_signups, message_domain = excluded.message_domain,
           sender_configured = excluded.sender_configured, updated_at = now()`,
    [settings.confirmSignups, settings.messageDomain, settings.senderConfigured],
  )
}

export async function readMailSettings(db: Queryable): Promise<MailSettings> {
  const [row] = await db.query<MailSettings>(
    `select confirm_signups as "confirmSignups", message_domain as "messageDomain",
            sender_configured as "senderConfigured"
       from private.mail_settings`,
  )
  return row ?? { confirmSignups: false, messageDomain: 'localhost', senderConfigured: false }
}
