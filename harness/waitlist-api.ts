/** Where a waitlist request goes, and with which key: a test server, or any server of ours. */
export interface WaitlistTarget {
  url: string
  anonKey: string
}

/** One insert as supabase-js sends it with the anon key (return=minimal); `body` objects are JSON-encoded. */
export function postWaitlist(
  target: WaitlistTarget,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${target.url}/rest/v1/waitlist`, {
    method: 'POST',
    headers: {
      apikey: target.anonKey,
      Authorization: `Bearer ${target.anonKey}`,
      'Content-Type': 'application/json',
      'Content-Profile': 'public',
      Prefer: 'return=minimal',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}
