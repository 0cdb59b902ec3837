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
 * Nothing here checks a signature: it only reads what verify-agent.ts then checks.
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
