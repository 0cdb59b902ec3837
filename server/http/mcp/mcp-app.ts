import { type Context, type Handler, Hono, type MiddlewareHandler } from 'hono'
import { isSigned, type SignedAgents, withProof } from '../../agents/verify-agent'
import { nestsTooDeep } from '../../base/json-depth'
import type { Logger } from '../../base/log'
import { clientAddress, rateLimitKey } from '../../rate-limit/client-address'
import { signupNetwork } from '../../rate-limit/client-network'
import {
  type RateLimitStore,
  type Refusal,
  rateLimit,
  retryAfterHeader,
  seconds,
} from '../../rate-limit/rate-limit'
import type { SignupConsent, SignupDeps } from '../../waitlist/signup'
import type { HttpSourceCounter } from '../http-source-counter'
import { noStore } from '../middleware/json-error'
import { readBody } from '../middleware/request-guards'
import { DeclaredClients, declaredClient } from './declared-clients'
import { clientInfoOf, JsonRpcCode, jsonRpcError, toolCallParamsProblem } from './json-rpc'
import { oneLineErrors } from './one-line-errors'
import { originGuard } from './origin-guard'

/** A client's initialize names its capabilities; this is ample for it and far from a flood. */
export const MCP_MAX_BODY_BYTES = 64 * 1024

export interface McpAppDeps {
  /** The one signup path the tool is a door to. */
  signup: SignupDeps
  log: Logger
  /** The site's own origins (SITE_URL, the listening address): the only pages that may call. */
  allowedOrigins: () => readonly string[]
  rateLimiter?: RateLimitStore
  trustProxyHeader?: string
  /** The app's cap on requests in flight towards the database. */
  gate: MiddlewareHandler
  /** Counts signups through the tool, under `mcp` and the client's name (docs/analytics.md). */
  sources?: HttpSourceCounter
  /** CONFIRM_SIGNUPS is on (and can be: SMTP_URL): the tool's success says to confirm, as the page does. */
  confirmSignups?: boolean
  /** Web Bot Auth, for a signed tool call (server/agents); absent, none is checked. */
  agents?: SignedAgents
}

type Message = { method?: unknown; id?: unknown; params?: unknown }
/** The body's one message, parsed once: the rate limit asks whether it calls a tool, the answer reads it. */
type McpEnv = { Variables: { message?: Promise<unknown> } }

const requestId = (message: Message) =>
  typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null

/**
 * /mcp: the Model Context Protocol over Streamable HTTP, stateless (a fresh server and transport
 * per request, no session), answering JSON rather than an event stream since every answer is one
 * message. Before the SDK sees a message: the Origin check, the body limit, one message per
 * request (no batches), and the rate limit for tool calls, which write as the page's inserts do.
 */
export function createMcpApp(deps: McpAppDeps): Hono<McpEnv> {
  const app = new Hono<McpEnv>()
  const clients = new DeclaredClients()
  // On /mcp itself only: paths below it are unknown, and stay the site's 404.
  app.use('/', noStore)
  app.use('/', originGuard(deps.allowedOrigins))

  app.post(
    '/',
    // The whole body first, then a database slot: a slow sender holds only its own socket (ADR 024).
    readBody(MCP_MAX_BODY_BYTES, () =>
      jsonRpcError(
        413,
        JsonRpcCode.InvalidRequest,
        `Request body too large: this endpoint takes at most ${MCP_MAX_BODY_BYTES} bytes`,
      ),
    ),
    deps.gate,
    // A tool call writes as the page's insert does: one token; any other message is free.
    rateLimit(deps.rateLimiter, deps.trustProxyHeader, {
      rows: async (c) => (fieldsOf(await messageOf(c)).method === 'tools/call' ? 1 : 0),
      refuse: refuseAsJsonRpc,
    }),
    answerPost(deps, clients),
  )

  // No server-to-client stream and no session to end: POST is the whole protocol here.
  app.on(['GET', 'HEAD', 'DELETE', 'PUT', 'PATCH'], '/', () =>
    jsonRpcError(405, JsonRpcCode.ServerError, 'Method not allowed: send JSON-RPC messages with POST', {
      Allow: 'POST, OPTIONS',
    }),
  )
  app.options('/', (c) => c.body(null, 204, { Allow: 'POST, OPTIONS' }))
  return app
}

const fieldsOf = (message: unknown) =>
  (typeof message === 'object' && message !== null ? message : {}) as Message

function messageOf(c: Context<McpEnv>): Promise<unknown> {
  let message = c.get('message')
  if (!message) {
    message = readOneMessage(c)
    c.set('message', message)
  }
  return message
}

async function refuseAsJsonRpc(refusal: Refusal, c: Context<McpEnv>): Promise<Response> {
  const wait = `try again in ${seconds(refusal.retryAfter ?? 1)}`
  const id = requestId(fieldsOf(await messageOf(c)))
  return jsonRpcError(
    429,
    JsonRpcCode.ServerError,
    `${refusal.message}: ${wait}`,
    retryAfterHeader(refusal),
    id,
  )
}

/** Who calls, for DeclaredClients: the client's address as the rate limit keys it, and its User-Agent. */
const callerOf = (c: Context, trustProxyHeader: string | undefined) =>
  [rateLimitKey(clientAddress(c, trustProxyHeader)), c.req.header('user-agent') ?? ''] as const

/**
 * The tool call's consent record: `webmcp` when a page of the site's own made it (a browser sets
 * Origin, and the guard let only the site's own through: the page's WebMCP tool), else `mcp`; the
 * agent as its client declared itself, in this request (2026-07-28) or in its `initialize` (2025).
 */
function consentOf(
  c: Context,
  clients: DeclaredClients,
  trustProxyHeader: string | undefined,
  declared: { clientInfo?: unknown } | undefined,
): SignupConsent {
  const agent = declaredClient(declared) ?? clients.recall(...callerOf(c, trustProxyHeader))
  const door = c.req.header('origin') ? 'webmcp' : 'mcp'
  return agent ? { door, agent } : { door }
}

function answerPost(deps: McpAppDeps, clients: DeclaredClients): Handler<McpEnv> {
  return async (c) => {
    const message = await messageOf(c)
    if (message instanceof Response) return message
    const fields = fieldsOf(message)
    const problem = toolCallParamsProblem(fields.params)
    if (fields.method === 'tools/call' && problem && fields.id !== undefined) {
      return jsonRpcError(200, JsonRpcCode.InvalidParams, problem, {}, requestId(fields))
    }
    const { sources } = deps
    const client = clientInfoOf(fields.method, fields.params)
    if (client) sources?.rememberMcpClient(c, client)
    const declared = fields.method === 'initialize' ? declaredClient(client) : undefined
    if (declared) clients.remember(...callerOf(c, deps.trustProxyHeader), declared)
    // Named now, before any insert: `mcp`, and the client's name its initialize gave (analytics).
    const calls = fields.method === 'tools/call'
    const source = calls ? sources?.sourceOfSignup(c, 'mcp') : undefined
    const network = calls ? signupNetwork(clientAddress(c, deps.trustProxyHeader)) : undefined
    // The SDK (about 12 MiB in memory, ADR 049) loads with the first message that needs it, not at start.
    const { answerMcpMessage } = await import('./mcp-answer')
    const named = calls ? consentOf(c, clients, deps.trustProxyHeader, client) : undefined
    const { agents } = deps
    const signed = named && agents && isSigned(c.req.raw.headers)
    const consent = signed ? await withProof(named, c.req.raw, agents) : named
    const tool = {
      signup: deps.signup,
      log: deps.log,
      origin: { source, network, consent },
      confirmSignups: deps.confirmSignups,
    }
    return oneLineErrors(await answerMcpMessage(tool, c.req.raw, message))
  }
}

/** The body's one JSON-RPC message, or the error that answers it. */
async function readOneMessage(c: Context): Promise<unknown> {
  const text = await c.req.text()
  if (nestsTooDeep(text)) {
    return jsonRpcError(400, JsonRpcCode.InvalidRequest, 'Invalid Request: the JSON nests too deeply')
  }
  let message: unknown
  try {
    message = JSON.parse(text)
  } catch {
    return jsonRpcError(400, JsonRpcCode.ParseError, 'Parse error: the body is not valid JSON')
  }
  if (Array.isArray(message)) {
    // MCP 2025-06-18 removed JSON-RPC batching; one call per request also keeps one token per call.
    return jsonRpcError(
      400,
      JsonRpcCode.InvalidRequest,
      'Invalid Request: batches are not accepted; send one JSON-RPC message per request',
    )
  }
  return message
}
