import type { Statement } from '../db/database'

/**
 * The insert of one address, word for word the text the REST endpoint sends for a body of one row
 * with only `email` and no representation asked for, so the page's insert through either path
 * shares one prepared statement per connection. Keys absent from the row become null, as
 * PostgREST's json_populate_recordset does; here there is only the one key.
 */
export const INSERT_EMAIL_SQL =
  'insert into public."waitlist" ("email") select "email" from json_populate_recordset(null::public."waitlist", $1::json)'

/** The statement for one address: prepared once per connection, as the page's insert always is. */
export function insertEmailStatement(email: string): Statement {
  return { sql: INSERT_EMAIL_SQL, params: [JSON.stringify([{ email }])], prepare: true }
}
