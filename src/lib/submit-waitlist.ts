import { AGENT_DOOR_HEADER, WEBMCP_DOOR } from '../../contract/agent-door'
import { outcomeOfInsert, type WaitlistOutcome } from '../../contract/waitlist-outcome'
import { loadSupabase } from './load-supabase'

/**
 * The page's single backend call: a REST insert of one row into 'waitlist'. An agent's call through
 * the page's WebMCP tool (`byAgent`) is the same insert, which says so in a header for the entry's
 * consent record.
 */
export async function submitWaitlist(email: string, byAgent = false): Promise<WaitlistOutcome> {
  try {
    const supabase = await loadSupabase()
    const insert = supabase.from('waitlist').insert({ email })
    const { error } = await (byAgent ? insert.setHeader(AGENT_DOOR_HEADER, WEBMCP_DOOR) : insert)
    return outcomeOfInsert(error)
  } catch (error) {
    // A failed chunk download or a thrown fetch: the visitor sees the generic error.
    return { status: 'error', error }
  }
}
