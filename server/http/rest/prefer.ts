/** The `Prefer` preferences this API honours (RFC 7240, as PostgREST reads them); others are ignored. */
export interface Preferences {
  /** Named by the client, which PostgREST then echoes; minimal when absent. */
  return?: 'minimal' | 'representation'
  count?: 'exact'
}

export function parsePrefer(header: string | null | undefined): Preferences {
  const preferences: Preferences = {}
  for (const item of (header ?? '').split(',')) {
    const [key, value] = item.split('=').map((part) => part.trim())
    if (key === 'return' && (value === 'minimal' || value === 'representation')) preferences.return = value
    if (key === 'count' && value === 'exact') preferences.count = value
  }
  return preferences
}

/** PostgREST's Preference-Applied: what it honoured, in its order; reads never echo return. */
export function appliedPreferences(preferences: Preferences, write: boolean): string | undefined {
  const applied: string[] = []
  if (write && preferences.return) applied.push(`return=${preferences.return}`)
  if (preferences.count) applied.push(`count=${preferences.count}`)
  return applied.length > 0 ? applied.join(', ') : undefined
}
