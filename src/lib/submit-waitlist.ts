import { outcomeOfInsert, type WaitlistOutcome } from '../../contract/waitlist-outcome'
import { loadSupabase } from './load-supabase'

/** The page's single backend call: a REST insert of one row into 'waitlist'. */
export async function submitWaitlist(email: string): Promise<WaitlistOutcome> {
  try {
    const supabase = await loadSupabase()
    const { error } = await supabase.from('waitlist').insert({ email })
    return outcomeOfInsert(error)
  } catch (error) {
    // A failed chunk download or a thrown fetch: the visitor sees the generic error.
    return { status: 'error', error }
  }
}
