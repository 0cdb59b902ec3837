import { constants, verify as cryptoVerify, type KeyObject } from 'node:crypto'
import { type RequestLike, type ResponseRequestPair, verify as verifyMessage } from 'http-message-sig'
import { memberAlone, signatureInputs } from './signed-headers'

/**
 * One RFC 9421 signature checked against a directory's keys, for a request an agent signed and for
 * a directory's own response: the signature base is built by `http-message-sig` (the library
 * `web-bot-auth` verifies with), the bytes checked by Node's crypto, synchronously (an Ed25519
 * check is some tens of microseconds; WebCrypto's promise would cost more than the check).
 */

/** A public key of a directory, ready to verify with: its algorithm as RFC 9421 names it. */
export interface DirectoryKey {
  key: KeyObject
  alg: 'ed25519' | 'rsa-pss-sha512'
}

/** A directory's keys by their JWK thumbprint (the signature's `keyid`). */
export type DirectoryKeys = ReadonlyMap<string, DirectoryKey>

export type SignatureOutcome = 'held' | 'unknown key' | 'bad signature' | 'expired'

/** Whether `signature` is `key`'s over `data`, as RFC 9421 §3.3 defines each algorithm. */
export function bytesHold(key: DirectoryKey, data: string, signature: Uint8Array): boolean {
  if (key.alg === 'ed25519') return cryptoVerify(null, Buffer.from(data), key.key, signature)
  const pss = { key: key.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 }
  return cryptoVerify('sha512', Buffer.from(data), pss, signature)
}

/** The signed headers, this one signature alone: the library reads one signature a message. */
function headersAlone(headers: Headers, label: string): Headers | undefined {
  const input = memberAlone(headers.get('signature-input') ?? '', label)
  const signature = memberAlone(headers.get('signature') ?? '', label)
  if (!input || !signature) return undefined
  const alone = new Headers(headers)
  alone.set('signature-input', input)
  alone.set('signature', signature)
  return alone
}

/** What the message's signature `label`, by the key `keyid` of `keys`, comes to. */
export async function checkSignature(
  message: { request: RequestLike; response?: { status: number; headers: Headers } },
  label: string,
  keyid: string,
  keys: DirectoryKeys,
): Promise<SignatureOutcome> {
  const key = keys.get(keyid)
  if (!key) return 'unknown key'
  const signed = message.response ?? message.request
  const alone = headersAlone(signed.headers as Headers, label)
  if (!alone) return 'bad signature'
  const view = message.response
    ? ({ request: message.request, response: { ...message.response, headers: alone } } as ResponseRequestPair)
    : { ...message.request, headers: alone }
  try {
    const held = await verifyMessage(view, (data, signature) => bytesHold(key, data, signature))
    return held ? 'held' : 'bad signature'
  } catch (error) {
    // The library refuses a signature past its `expires` before checking it.
    return /expired/i.test((error as Error).message) ? 'expired' : 'bad signature'
  }
}

const DIRECTORY_TAG = 'http-message-signatures-directory'

/**
 * A directory's own signature, where it carries one (draft-meunier-webbotauth-httpsig-directory
 * §5.2): made by one of the keys it lists, over the `@authority` it was asked at. A directory
 * carrying none holds as fetched over HTTPS; one whose signature fails is not read at all.
 */
export async function directorySignatureHolds(url: string, response: Response, keys: DirectoryKeys) {
  const header = response.headers.get('signature-input')
  if (header === null) return true
  const signed = signatureInputs(header).find(
    (input) => input.tag === DIRECTORY_TAG && input.keyid !== undefined && keys.has(input.keyid),
  )
  if (!signed?.keyid) return false
  const request = { method: 'GET', url, headers: new Headers() }
  const reply = { status: response.status, headers: response.headers }
  return (await checkSignature({ request, response: reply }, signed.label, signed.keyid, keys)) === 'held'
}
