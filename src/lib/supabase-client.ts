import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import type { BackendConfig } from './backend-config'

/** The client exactly as the specification configures it (section 7). */
export function createSupabaseClient({ url, anonKey }: BackendConfig): SupabaseClient {
  return createClient(url, anonKey, {
    db: { schema: 'public' },
    auth: {
      autoRefreshToken: true,
      persistSession: true,
      storage: window.localStorage,
      detectSessionInUrl: true,
      flowType: 'implicit',
    },
  })
}
