/** The `Prefer` header preferences this API honours (RFC 7240, as PostgREST reads them). */
export interface Preferences {
  return: 'minimal' | 'representation' | 'headers-only'
  /** True when the client named a return preference, which PostgREST then echoes. */
  returnAsked: boolean
  /** The count the client asked for; planned and estimated are answered with the exact count. */
  count: 'exact' | 'planned' | 'estimated' | undefined
  /** Upsert: what a POST does with a row that conflicts (supabase-js `upsert()`). */
  resolution: 'merge-duplicates' | 'ignore-duplicates' | undefined
}

export function parsePrefer(header: string | null | undefined): Preferences {
  const preferences: Preferences = {
    return: 'minimal',
    returnAsked: false,
    count: undefined,
    resolution: undefined,
  }
  for (const item of (header ?? '').split(',')) {
    const [key, value] = item
      .trim()
      .split('=')
      .map((part) => part.trim())
    if (key === 'return' && (value === 'minimal' || value === 'representation' || value === 'headers-only')) {
      preferences.return = value
      preferences.returnAsked = true
    }
    if (key === 'resolution' && (value === 'merge-duplicates' || value === 'ignore-duplicates')) {
      preferences.resolution = value
    }
    if (key === 'count' && (value === 'exact' || value === 'planned' || value === 'estimated')) {
      preferences.count = value
    }
  }
  return preferences
}

/**
 * PostgREST's Preference-Applied: the preferences it honoured, in its order (resolution, return, count).
 * Reads never echo return; unsupported preferences (missing, resolution, tx, ...) are not echoed.
 */
export function appliedPreferences(preferences: Preferences, mutation: boolean): string | undefined {
  const applied: string[] = []
  if (mutation && preferences.resolution) applied.push(`resolution=${preferences.resolution}`)
  if (mutation && preferences.returnAsked) applied.push(`return=${preferences.return}`)
  if (preferences.count) applied.push(`count=${preferences.count}`)
  return applied.length > 0 ? applied.join(', ') : undefined
}
