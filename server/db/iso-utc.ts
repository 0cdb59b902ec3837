/**
 * A timestamptz column as text in UTC with microseconds, e.g. 2026-11-01T09:00:00.123456Z: the form
 * `export` writes, exact so that a file round-trips, and the one every tool prints.
 */
export const isoUtc = (column: string): string =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
