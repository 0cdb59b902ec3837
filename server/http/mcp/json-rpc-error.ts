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
