/** An answer in PostgREST's error shape: `{ code, details, hint, message }` with its status code. */
export class PostgrestError extends Error {
  override name = 'PostgrestError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | null = null,
    readonly hint: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  toJSON() {
    return { code: this.code, details: this.details, hint: this.hint, message: this.message }
  }
}

export const invalidJson = (details: string | null = null) =>
  new PostgrestError(400, 'PGRST102', 'Empty or invalid json', details)

export const unknownColumn = (column: string, table: string) =>
  new PostgrestError(400, 'PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`)

export const unknownTable = (table: string, suggestion?: string) =>
  new PostgrestError(
    404,
    'PGRST205',
    `Could not find the table 'public.${table}' in the schema cache`,
    null,
    suggestion ? `Perhaps you meant the table 'public.${suggestion}'` : null,
  )

export const schemaNotExposed = (schema: string) =>
  new PostgrestError(406, 'PGRST106', `Invalid schema: ${schema}`, null, 'Only the following schemas are exposed: public')

export const unparsableQuery = (message: string, details: string | null = null) =>
  new PostgrestError(400, 'PGRST100', message, details)

// PostgREST 12+ answers a body it cannot read with PGRST102 and 400 (415 was retired in 12.0.3).
export const unsupportedMediaType = (type: string) =>
  new PostgrestError(400, 'PGRST102', `Content-Type not acceptable: ${type}`)

export const methodNotAllowed = (method: string) =>
  new PostgrestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`)

export const missingColumn = (column: string, table: string) =>
  new PostgrestError(400, '42703', `column ${table}.${column} does not exist`)

export const payloadTooLarge = (limit: number) =>
  new PostgrestError(413, 'PGRST413', `Payload too large: the request body may be at most ${limit} bytes`)

export const invalidJwt = (message: string) =>
  new PostgrestError(401, message === 'JWT expired' ? 'PGRST303' : 'PGRST301', message, null, null, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${message}"`,
  })

export const internalError = () =>
  new PostgrestError(500, 'PGRST000', 'Internal server error', null, 'The error was logged on the server')
