import { describe, expect, it } from 'vitest'
import { registerWords } from '../../server/waitlist/consent/consent-record'
import { sharedPostgres } from '../support/file-server'

/**
 * Several servers start on one database at once (scale-out), and each stores the words its doors
 * show. The version and the hash are both unique: when two inserts of one text pass the conflict
 * check together, the later one meets the other's row on whichever index it reaches first, and
 * either is the same text held, not an error. CI caught three servers behind PgBouncer failing to
 * start on `consent_words_hash_key`; eight connections at once, 300 times, met it within a second.
 */
const shared = sharedPostgres(8)

describe('servers storing the same words at once', () => {
  it('eight at a time, 300 texts: every one gets the version, and each text is held once', async () => {
    const rounds = 300
    for (let round = 0; round < rounds; round++) {
      const text = `The words of round ${round}.`
      const versions = await Promise.all(Array.from({ length: 8 }, () => registerWords(shared.db, [text])))
      expect(new Set(versions.map(([held]) => held?.version)).size).toBe(1)
    }
    const [row] = await shared.db.query<{ texts: number; versions: number }>(
      `select count(distinct text)::int as texts, count(*)::int as versions
         from private.consent_words where text like 'The words of round %'`,
    )
    expect(row).toEqual({ texts: rounds, versions: rounds })
  })
})
