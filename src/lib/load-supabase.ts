import type { SupabaseClient } from '@supabase/supabase-js'
import { readBackendConfig } from './backend-config'

// The Supabase client is about 50 KB compressed and the first paint does not need it: it is
// fetched when the visitor first reaches for the form (focus, pointer) or submits.
let client: Promise<SupabaseClient> | undefined

export function loadSupabase(): Promise<SupabaseClient> {
  client ??= import('./supabase-client').then(({ createSupabaseClient }) =>
    createSupabaseClient(readBackendConfig()),
  )
  // A failed download must not poison every later attempt.
  client.catch(() => {
    client = undefined
  })
  return client
}
