/**
 * Codes of the JSON-RPC errors /mcp answers before the MCP server sees a message: JSON-RPC 2.0's
 * own (https://www.jsonrpc.org/specification#error_object), the SDK's ErrorCode values, written
 * out so this module does not load the SDK.
 */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  InvalidParams: -32602,
  // The implementation-defined range, as the SDK's transport uses for HTTP-level refusals.
  ServerError: -32000,
} as const

/**
 * A refusal in the shape an MCP client reads (a JSON-RPC error object) with the HTTP status that
 * says what happened, so both the SDK's client and a plain HTTP client get a clear answer.
 */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: string | number | null = null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  })
}

/**
 * The `_meta` key under which a 2026-07-28 request names its client: the SDK's
 * CLIENT_INFO_META_KEY, written out so that /mcp's checks do not load the SDK.
 */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo'

/**
 * Who the client says it is, in the shape an `initialize`'s params carry it: a 2025 client names
 * itself once, in `initialize`; a 2026-07-28 one in every request's `_meta` envelope.
 */
export function clientInfoOf(method: unknown, params: unknown): { clientInfo?: unknown } | undefined {
  if (method === 'initialize') return params as { clientInfo?: unknown } | undefined
  const meta = (params as { _meta?: unknown } | undefined)?._meta
  if (typeof meta !== 'object' || meta === null) return undefined
  const clientInfo = (meta as Record<string, unknown>)[CLIENT_INFO_META_KEY]
  return clientInfo === undefined ? undefined : { clientInfo }
}

const USAGE = 'tools/call takes {"name": "request_beta_access", "arguments": {"email": "…"}}'

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * What is wrong with a tools/call's params, if anything. The SDK would answer the same mistakes
 * with its schema library's issue list as an internal error (-32603); this names the mistake,
 * for an invalid-params error (-32602).
 */
export function toolCallParamsProblem(params: unknown): string | undefined {
  if (!isRecord(params)) return `Invalid params: ${USAGE}`
  if (typeof params.name !== 'string') return `Invalid params: the tool's "name" must be a string; ${USAGE}`
  if (params.arguments !== undefined && !isRecord(params.arguments)) {
    return `Invalid params: "arguments" must be an object; ${USAGE}`
  }
  return undefined
}
