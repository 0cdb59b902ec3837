import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import type { BackendConfig } from './backend-config'

/** The client with the options the product requires, each written out so none rests on a default. */
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
