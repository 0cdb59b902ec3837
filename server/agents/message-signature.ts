import { constants, verify as cryptoVerify, type KeyObject } from 'node:crypto'
import { type RequestLike, type ResponseRequestPair, verify as verifyMessage } from 'http-message-sig'
import {
  type Dictionary,
  isInnerList,
  parseDictionary,
  parseItem,
  serializeDictionary,
} from 'structured-headers'

/**
 * The headers of a signed message, read as RFC 8941 structured fields: the signature's parameters
 * from `Signature-Input` (RFC 9421 §4.1), and the agent it names in `Signature-Agent`, in either
 * form a signer sends (draft-ietf-webbotauth-httpsig-protocol): the plain string of the first
 * drafts (`"https://chatgpt.com"`) or the dictionary that replaced it, one member per signature
 * label, typed `directory` (the default), `jwks_uri` or `cimd` (`sig1="https://…";type=jwks_uri`).
 * Then one signature checked against a directory's keys (below): the request's, and a directory's own.
 */

/** One signature's parameters, as its `Signature-Input` member gives them. */
export interface SignatureInput {
  /** The member's label, `sig1`: the one the `Signature` and `Signature-Agent` members share. */
  label: string
  /** The covered components, lower case, parameters aside (`@authority`, `signature-agent`). */
  components: string[]
  tag?: string
  keyid?: string
  alg?: string
  nonce?: string
  /** Seconds since the epoch, as signed. */
  created?: number
  expires?: number
}

export type AgentEntryType = 'directory' | 'jwks_uri' | 'cimd'

/** The agent a signature names: where its keys are, and how to read them. */
export interface AgentEntry {
  uri: string
  type: AgentEntryType
}

const TYPES: readonly AgentEntryType[] = ['directory', 'jwks_uri', 'cimd']
const WEB_BOT_AUTH = 'web-bot-auth'

const dictionaryOf = (text: string): Dictionary | undefined => {
  try {
    return parseDictionary(text)
  } catch {
    return undefined
  }
}

const stringParam = (value: unknown) => (typeof value === 'string' ? value : undefined)
const integerParam = (value: unknown) => (Number.isSafeInteger(value) ? (value as number) : undefined)

/** Every signature a `Signature-Input` header describes; none when it does not parse. */
export function signatureInputs(header: string): SignatureInput[] {
  const members = dictionaryOf(header)
  if (!members) return []
  const inputs: SignatureInput[] = []
  for (const [label, member] of members) {
    if (!isInnerList(member)) continue
    const [items, params] = member
    const components = items.map(([name]) => (typeof name === 'string' ? name.toLowerCase() : ''))
    inputs.push({
      label,
      components,
      tag: stringParam(params.get('tag')),
      keyid: stringParam(params.get('keyid')),
      alg: stringParam(params.get('alg')),
      nonce: stringParam(params.get('nonce')),
      created: integerParam(params.get('created')),
      expires: integerParam(params.get('expires')),
    })
  }
  return inputs
}

/**
 * The web-bot-auth signature among a `Signature-Input`'s members (a proxy on the way may have
 * added its own), else the only one there; undefined when none parses.
 */
export function webBotAuthInput(header: string): SignatureInput | undefined {
  const inputs = signatureInputs(header)
  return inputs.find((input) => input.tag === WEB_BOT_AUTH) ?? (inputs.length === 1 ? inputs[0] : undefined)
}

/**
 * One member of a signature dictionary header (`Signature-Input`, `Signature`), alone, as the
 * verifying library takes it (it reads one signature a message). Serialized again from its parse,
 * which RFC 8941 makes canonical: the text a conforming signer signed.
 */
export function memberAlone(header: string, label: string): string | undefined {
  const member = dictionaryOf(header)?.get(label)
  return member ? serializeDictionary(new Map([[label, member]])) : undefined
}

/** The Signature-Agent entry for the signature labelled `label`, in either form; undefined if none parses. */
export function signatureAgentEntry(header: string, label: string): AgentEntry | undefined {
  // The plain string is no dictionary: read as an item at once, not after the dictionary's parse fails.
  const members = header.trimStart().startsWith('"') ? undefined : dictionaryOf(header)
  if (members && members.size > 0) {
    const member = members.get(label) ?? (members.size === 1 ? [...members.values()][0] : undefined)
    if (!member || isInnerList(member)) return undefined
    const [uri, params] = member
    const type = String(params.get('type') ?? 'directory') as AgentEntryType
    return typeof uri === 'string' && TYPES.includes(type) && URL.canParse(uri) ? { uri, type } : undefined
  }
  try {
    const [uri] = parseItem(header)
    return typeof uri === 'string' && URL.canParse(uri) ? { uri, type: 'directory' } : undefined
  } catch {
    return undefined
  }
}

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
