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
