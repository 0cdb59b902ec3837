import { randomBytes } from 'node:crypto'
import type { Queryable } from '../db/database'

/**
 * The day's salt for the visitor hash (Plausible's method): random, one per UTC day, kept in the
 * database so that every server on it hashes a visitor alike, and deleted once the day is over.
 * A server that would create the salt of a day the database already thinks is over creates none:
 * a deleted salt never comes back (its visits then count, but not as visitors, for those seconds).
 */
export class DailySalt {
  #day = ''
  #salt: string | undefined

  /** The salt of `day` (hex), when this server holds it; undefined otherwise (no visitor is counted). */
  saltFor(day: string): string | undefined {
    return day === this.#day ? this.#salt : undefined
  }

  /** Loads (or creates) the salt of `day`, once per day; the request path never waits for it. */
  async refresh(db: Queryable, day: string): Promise<void> {
    if (day === this.#day) return
    await db.query(
      `insert into private.visitor_salts (day, salt)
       select $1::date, $2::bytea where $1::date >= (now() at time zone 'UTC')::date
       on conflict (day) do nothing`,
      [day, randomBytes(32)],
    )
    // A statement of its own, so it sees a salt another server committed meanwhile.
    const [row] = await db.query<{ salt: Buffer }>(
      'select salt from private.visitor_salts where day = $1::date',
      [day],
    )
    if (!row) return
    this.#day = day
    this.#salt = row.salt.toString('hex')
    row.salt.fill(0)
  }

  /** Forgets this server's copy (the server is stopping, or the day is over). */
  forget(): void {
    this.#day = ''
    this.#salt = undefined
  }
}

/** Deletes the salts of the days before `today`: their visitors can no longer be told apart. */
export async function deleteOldSalts(db: Queryable, today: string): Promise<void> {
  await db.query('delete from private.visitor_salts where day < $1::date', [today])
}
