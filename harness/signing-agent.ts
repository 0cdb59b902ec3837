import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateNonce, helpers, jwkToKeyID, signatureHeaders } from 'web-bot-auth'
import { signerFromJWK } from 'web-bot-auth/crypto'

/**
 * A Web Bot Auth signer for the tests and the bench, as an agent is one: RFC 9421's Ed25519 test
 * key (Appendix B.1.4, `test-key-ed25519`), signing with Cloudflare's `web-bot-auth`, and its key
 * directory served on loopback, counting the requests it gets (an unlisted agent's must get none).
 */

/** RFC 9421 Appendix B.1.4: a published test key, never anyone's real key. */
export const RFC9421_ED25519_TEST_KEY = {
  kty: 'OKP',
  crv: 'Ed25519',
  kid: 'test-key-ed25519',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
}

/** The key's public half, as a directory lists it. */
export const RFC9421_ED25519_PUBLIC = { kty: 'OKP', crv: 'Ed25519', x: RFC9421_ED25519_TEST_KEY.x }

/** The JWK thumbprint a signature names as its keyid. */
export const testKeyId = () =>
  jwkToKeyID(RFC9421_ED25519_PUBLIC, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE)

/** A key directory on 127.0.0.1: its origin, how many requests it has answered, and its stop. */
export interface AgentDirectory {
  origin: string
  /** Requests answered, all of them or those for one path. */
  requests(path?: string): number
  close(): Promise<void>
}

/** Where the served keys are, by each type of Signature-Agent entry (ADR 125). */
export const KEY_PATHS = {
  directory: '/.well-known/http-message-signatures-directory',
  /** The same keys as a plain JWKS, for a `jwks_uri` entry. */
  jwksUri: '/keys.jwks',
  /** A Client ID Metadata Document whose `jwks_uri` is the JWKS above, for a `cimd` entry. */
  cimd: '/client.json',
  /** One that carries its keys itself (`jwks`). */
  cimdInline: '/client-inline.json',
} as const

/** The body each path serves: the keys three ways, the documents naming their own address. */
function served(origin: string, keys: readonly object[]): Map<string, object> {
  const client = (path: string) => ({ client_id: `${origin}${path}`, client_name: 'Test agent' })
  return new Map<string, object>([
    [KEY_PATHS.directory, { keys }],
    [KEY_PATHS.jwksUri, { keys }],
    [KEY_PATHS.cimd, { ...client(KEY_PATHS.cimd), jwks_uri: `${origin}${KEY_PATHS.jwksUri}` }],
    [KEY_PATHS.cimdInline, { ...client(KEY_PATHS.cimdInline), jwks: { keys } }],
  ])
}

/** Serves `keys` at the well-known directory (and KEY_PATHS' other places), as a signer publishes them. */
export async function serveDirectory(
  keys: readonly object[] = [RFC9421_ED25519_PUBLIC],
): Promise<AgentDirectory> {
  const asked: string[] = []
  let bodies = new Map<string, object>()
  const server: Server = createServer((request, response) => {
    asked.push(request.url ?? '')
    const body = bodies.get(request.url ?? '')
    if (!body) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, {
      'Content-Type': 'application/http-message-signatures-directory+json',
      'Cache-Control': 'max-age=3600',
    })
    response.end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  bodies = served(origin, keys)
  return {
    origin,
    requests: (path) => (path === undefined ? asked.length : asked.filter((each) => each === path).length),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

export interface SigningOptions {
  /** The Signature-Agent header as sent: `"https://…"` (the plain string) or `sig1="https://…"`. */
  signatureAgent?: string
  /** Seconds from now the signature was made and expires: an expired one has both in the past. */
  createdIn?: number
  expiresIn?: number
  nonce?: string
  key?: JsonWebKey
}

/** The headers a signed request to `url` carries: Signature, Signature-Input and Signature-Agent. */
export async function signedHeaders(
  url: string,
  options: SigningOptions = {},
): Promise<Record<string, string>> {
  const agent: Record<string, string> = options.signatureAgent
    ? { 'Signature-Agent': options.signatureAgent }
    : {}
  const request = new Request(url, { method: 'POST', headers: agent })
  const now = Date.now()
  const signer = await signerFromJWK(options.key ?? RFC9421_ED25519_TEST_KEY)
  const signed = await signatureHeaders(request, signer, {
    created: new Date(now + (options.createdIn ?? 0) * 1000),
    expires: new Date(now + (options.expiresIn ?? 60) * 1000),
    nonce: options.nonce ?? generateNonce(),
  })
  return { ...agent, Signature: signed.Signature, 'Signature-Input': signed['Signature-Input'] }
}
