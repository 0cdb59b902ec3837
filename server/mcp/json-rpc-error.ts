import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'

/** Codes of the JSON-RPC errors /mcp answers before the MCP server sees a message. */
export const JsonRpcCode = {
  ParseError: ErrorCode.ParseError,
  InvalidRequest: ErrorCode.InvalidRequest,
  InvalidParams: ErrorCode.InvalidParams,
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
