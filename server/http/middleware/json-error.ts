/** A PostgREST-shaped error answer for the protections that stand in front of the REST app. */
export function jsonError(
  status: number,
  code: string,
  message: string,
  hint: string | null = null,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ code, details: null, hint, message }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  })
}
