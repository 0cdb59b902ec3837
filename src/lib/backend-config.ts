/**
 * Where the page sends its one call. A build can be pointed at a hosted Supabase project with
 * VITE_SUPABASE_URL / VITE_SUPABASE_ANON_KEY; otherwise it talks to the server it came from, which
 * writes its anon key into a <meta> tag when serving (no inline script, so a strict CSP holds).
 */
export interface BackendConfig {
  url: string
  anonKey: string
}

export const ANON_KEY_META = 'supabase-anon-key'

export function readBackendConfig(): BackendConfig {
  const url = import.meta.env.VITE_SUPABASE_URL || window.location.origin
  const anonKey =
    import.meta.env.VITE_SUPABASE_ANON_KEY ||
    document.querySelector<HTMLMetaElement>(`meta[name="${ANON_KEY_META}"]`)?.content ||
    ''
  return { url, anonKey }
}
