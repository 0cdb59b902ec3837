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
