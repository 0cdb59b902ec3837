import type { AddressPolicy } from '../../waitlist/address-policy/address-policy'
import { addressRefused } from './postgrest-error'
import type { Row } from './request-body'

/**
 * The waitlist's address policy on an insert with a public key: the whole request is refused, and
 * nothing stored, if any row's address is (the first such row in order decides the answer).
 */
export async function checkAddresses(
  policy: AddressPolicy | undefined,
  table: string,
  keys: readonly string[],
  rows: readonly Row[],
): Promise<void> {
  if (!policy || table !== 'waitlist' || !keys.includes('email')) return
  const refusals = await Promise.all(rows.map((row) => policy.refusal(row.email)))
  const first = refusals.find((refusal) => refusal !== undefined)
  if (first) throw addressRefused(first)
}
