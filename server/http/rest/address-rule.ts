import type { AddressPolicy } from '../../waitlist/address-policy/address-policy'
import { addressRefused } from './postgrest-error'
import type { Row } from './request-body'

/**
 * The waitlist's address policy on an insert with a public key: the whole request is refused, and
 * nothing stored, if any row's address is (the first such row in order decides the answer). With
 * the lists alone it is synchronous, so the insert path awaits nothing more (undefined: go on).
 */
export function checkAddresses(
  policy: AddressPolicy | undefined,
  table: string,
  keys: readonly string[],
  rows: readonly Row[],
): Promise<void> | undefined {
  if (!policy || table !== 'waitlist' || !keys.includes('email')) return undefined
  if (!policy.asksDns) {
    for (const row of rows) {
      const refusal = policy.listed(row.email)
      if (refusal) throw addressRefused(refusal)
    }
    return undefined
  }
  return Promise.all(rows.map((row) => policy.refusal(row.email))).then((refusals) => {
    const first = refusals.find((refusal) => refusal !== undefined)
    if (first) throw addressRefused(first)
  })
}
