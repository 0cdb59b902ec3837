/** The `Prefer` header preferences this API honours (RFC 7240, as PostgREST reads them). */
export interface Preferences {
  return: 'minimal' | 'representation' | 'headers-only'
  count: 'exact' | undefined
}

export function parsePrefer(header: string | null | undefined): Preferences {
  const preferences: Preferences = { return: 'minimal', count: undefined }
  for (const item of (header ?? '').split(',')) {
    const [key, value] = item.trim().split('=').map((part) => part.trim())
    if (key === 'return' && (value === 'minimal' || value === 'representation' || value === 'headers-only')) {
      preferences.return = value
    }
    if (key === 'count' && (value === 'exact' || value === 'planned' || value === 'estimated')) {
      preferences.count = 'exact'
    }
  }
  return preferences
}

/** PostgREST echoes the preferences it honoured; return=minimal is its default and goes unsaid. */
export function appliedPreferences(preferences: Preferences, header: string | null | undefined): string | undefined {
  if (!header) return undefined
  const applied: string[] = []
  if (preferences.return !== 'minimal') applied.push(`return=${preferences.return}`)
  if (preferences.count) applied.push(`count=${preferences.count}`)
  return applied.length > 0 ? applied.join(', ') : undefined
}
