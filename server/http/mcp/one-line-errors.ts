import { JsonRpcCode } from './json-rpc'

// Longer than this, an error message is a dump rather than a sentence.
const MAX_MESSAGE_CHARS = 300
const MAX_ISSUES_NAMED = 3

type ErrorBody = { jsonrpc: string; id: unknown; error: { code: number; message: string; data?: unknown } }

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof (body as ErrorBody | null)?.error?.message === 'string' &&
  typeof (body as ErrorBody).error.code === 'number'

/**
 * Each issue of a schema library's report ("params.protocolVersion: expected string, received
 * undefined"), or nothing when the message is not such a report.
 */
function issuesOf(message: string): string[] | undefined {
  try {
    const issues = JSON.parse(message) as unknown
    if (!Array.isArray(issues) || issues.length === 0) return undefined
    return issues.map((issue: { path?: unknown; message?: unknown }) => {
      const path = Array.isArray(issue?.path) ? issue.path.join('.') : ''
      const what =
        typeof issue?.message === 'string' ? issue.message.replace(/^Invalid input: /, '') : 'invalid'
      return path ? `${path}: ${what}` : what
    })
  } catch {
    return undefined
  }
}

/** One line for an error the SDK answered with many. */
function oneLine({ code, message }: ErrorBody['error']): { code: number; message: string } {
  const issues = issuesOf(message)
  // Not a schema report: its first line, under its own code.
  if (!issues) return { code, message: message.split('\n', 1)[0]?.slice(0, MAX_MESSAGE_CHARS) ?? '' }
  const named = issues.slice(0, MAX_ISSUES_NAMED).join('; ')
  const more = issues.length > MAX_ISSUES_NAMED ? ` (and ${issues.length - MAX_ISSUES_NAMED} more)` : ''
  // The message did not fit what MCP defines for its method: the client's params, not the server.
  return { code: JsonRpcCode.InvalidParams, message: `Invalid params: ${named}${more}` }
}

/**
 * The SDK answers a request whose params fail its schema (a malformed `initialize`, say) with an
 * internal error (-32603) whose message is the schema library's whole report, many lines of JSON.
 * A client deserves one clear line: this keeps every other answer as it is and turns such an error
 * into invalid params (-32602) that names what was wrong, without a stack or a schema.
 */
export async function oneLineErrors(response: Response): Promise<Response> {
  if (!response.headers.get('content-type')?.startsWith('application/json')) return response
  const text = await response.text()
  const rebuilt = (body: string) => {
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    return new Response(body, { status: response.status, statusText: response.statusText, headers })
  }
  // Most answers are results: no need to parse them.
  if (!text.includes('"error"')) return rebuilt(text)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return rebuilt(text)
  }
  if (!isErrorBody(body)) return rebuilt(text)
  const { message } = body.error
  if (!message.includes('\n') && message.length <= MAX_MESSAGE_CHARS) return rebuilt(text)
  return rebuilt(JSON.stringify({ jsonrpc: body.jsonrpc, id: body.id, error: oneLine(body.error) }))
}
