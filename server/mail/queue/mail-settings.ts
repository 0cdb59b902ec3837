import { isPgError, type Queryable } from '../../db/database'

/** What decides a message's content and pace, as the server that sends it has them. */
export interface MessageSettings {
  /** SITE_URL (else the address the server listens on), normalized: where the links lead. */
  siteUrl: string
  /** BETA_URL, else mailWords.betaUrl. */
  betaUrl: string
  /** MAIL_FROM as the From header carries it; null where the server has no SMTP_URL. */
  from: string | null
  /** MAIL_PER_MINUTE (0: no cap). */
  perMinute: number
}

/** The database-wide mail switches, written by each server at start-up (the last to start decides). */
export interface MailSettings {
  /** New signups get a confirmation message and the status `unconfirmed` (the insert trigger reads it). */
  confirmSignups: boolean
  /** MAIL_FROM's domain, for the Message-ID of confirmations the trigger queues. */
  messageDomain: string
  /** A server that can send (SMTP_URL set) has started on this database. */
  senderConfigured: boolean
  /**
   * The last server's message settings, so the owner's tools preview what it sends; undefined
   * where no server (of a version that records them) has started on this database.
   */
  message?: MessageSettings
}

export async function writeMailSettings(db: Queryable, settings: MailSettings): Promise<void> {
  const message = settings.message
  await db.query(
    `insert into private.mail_settings (singleton, confirm_signups, message_domain, sender_configured,
                                        site_url, beta_url, mail_from, mail_per_minute)
     values (true, $1, $2, $3, $4, $5, $6, $7)
     on conflict (singleton) do update
       set confirm_signups = excluded.confirm_signups, message_domain = excluded.message_domain,
           sender_configured = excluded.sender_configured, site_url = excluded.site_url,
           beta_url = excluded.beta_url, mail_from = excluded.mail_from,
           mail_per_minute = excluded.mail_per_minute, updated_at = now()`,
    [
      settings.confirmSignups,
      settings.messageDomain,
      settings.senderConfigured,
      message?.siteUrl ?? null,
      message?.betaUrl ?? null,
      message?.from ?? null,
      message?.perMinute ?? null,
    ],
  )
}

interface SettingsRow {
  confirmSignups: boolean
  messageDomain: string
  senderConfigured: boolean
  siteUrl: string | null
  betaUrl: string | null
  from: string | null
  perMinute: number | null
}

/** Before any server has started on the database (or where there is no database yet). */
export const NO_MAIL_SETTINGS: MailSettings = {
  confirmSignups: false,
  messageDomain: 'localhost',
  senderConfigured: false,
}

// A database as it is (a dry run migrates nothing) may predate the table or its columns.
const UNDEFINED_TABLE_OR_COLUMN = new Set(['42P01', '42703', '3F000'])

export async function readMailSettings(db: Queryable): Promise<MailSettings> {
  let rows: SettingsRow[]
  try {
    rows = await db.query<SettingsRow>(
      `select confirm_signups as "confirmSignups", message_domain as "messageDomain",
              sender_configured as "senderConfigured", site_url as "siteUrl", beta_url as "betaUrl",
              mail_from as "from", mail_per_minute as "perMinute"
         from private.mail_settings`,
    )
  } catch (error) {
    if (isPgError(error) && UNDEFINED_TABLE_OR_COLUMN.has(error.code)) return NO_MAIL_SETTINGS
    throw error
  }
  const [row] = rows
  if (!row) return NO_MAIL_SETTINGS
  const { siteUrl, betaUrl, from, perMinute, ...switches } = row
  if (siteUrl === null || betaUrl === null) return switches
  return { ...switches, message: { siteUrl, betaUrl, from, perMinute: perMinute ?? 0 } }
}

/** What the owner's tools say where the last server to start could not send (or none has started). */
export const NO_SENDER_YET =
  'The last server to start on this database has no SMTP_URL (or none has started yet): invitations queued now wait, and go out once a server with SMTP_URL and MAIL_FROM runs. See docs/invitations.md.'
