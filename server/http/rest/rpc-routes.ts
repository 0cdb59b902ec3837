import type { Context } from 'hono'
import type { Database } from '../../db/database'
import type { JwtClaims } from '../../db/jwt-claims'
import { type LinkKeys, linkKeys } from '../../mail/messages/link-seals'
import { REDEEM_REFUSALS, type RedeemRefusal, redeemInvite } from '../../waitlist/redeem-invite'
import type { SiteCors } from '../site-cors'
import {
  functionDenied,
  invalidJson,
  JSON_TYPE,
  methodNotAllowed,
  PostgrestError,
  readOnlyCall,
  schemaNotExposed,
  unacceptableMediaType,
  unknownFunction,
  unsupportedParameter,
} from './postgrest-error'
import { parseJsonBody, type RestEnv, searchParamsOf } from './rest-request'

/**
 * `/rest/v1/rpc/<name>`: the one function this API serves, `redeem_invite(code)`, which the beta
 * product calls with the service_role key when someone arrives with an invite code
 * (supabase.rpc('redeem_invite', { code })). No SQL function stands behind it: the code is sealed
 * with a key derived from the JWT secret, which Postgres never holds, so the room checks what
 * PostgREST and Postgres would, in their order and words: the key, the profile, the body, the
 * function and its argument names, the role's right to execute it, then the call.
 */
const REDEEM = 'redeem_invite'
const PARAMETERS = ['code']
const SIGNATURE = `public.${REDEEM}(${PARAMETERS.join(', ')})`
const MAX_ARGUMENT_NAMES = 20

export interface RpcDeps {
  db: Database
  cors: SiteCors
  /** The JWT secret the link keys (and so the invite codes) are derived from. */
  secret: Uint8Array
  /** The REST room's key check: the request's claims, or the gateway's or PostgREST's 401. */
  authenticate: (request: Request) => Promise<JwtClaims>
}

// A refused code, as the beta product gets it: a status of its own for each refusal, with
// PostgREST's code for a function's chosen status (`raise sqlstate 'PT404'`), so a port of
// redeem_invite to SQL could answer the same; the hint says what to do.
const REFUSED: Record<RedeemRefusal, { status: number; hint: string }> = {
  invalid: {
    status: 400,
    hint: 'Pass the ?invite= value exactly as the link carried it; a code made by another installation needs its JWT_SECRET.',
  },
  test: { status: 422, hint: 'Redeem the code of a real invitation (invite EMAIL), not of invite --test.' },
  unknown: {
    status: 404,
    hint: 'An erased entry takes its invitations with it; the person may join the waitlist again.',
  },
  replaced: {
    status: 410,
    hint: 'Tell the person to open the latest invitation the lab sent them: its code admits them.',
  },
}

const redeemRefused = (refusal: RedeemRefusal) => {
  const { status, hint } = REFUSED[refusal]
  return new PostgrestError(status, `PT${status}`, REDEEM_REFUSALS[refusal], null, hint)
}

// One JSON value answers a call: an object, or `.single()`'s object type.
const OBJECT_ACCEPTED =
  /^\s*(\*\/\*|application\/\*|application\/json|application\/vnd\.pgrst\.object(\+json)?)?\s*(;|$)/i

interface Call {
  claims: JwtClaims
  headers: Record<string, string>
}

/** What every call checks first, in PostgREST's order: the key, the profile, the query, Accept. */
async function openCall(c: Context<RestEnv>, { cors, authenticate }: RpcDeps): Promise<Call> {
  const request = c.req.raw
  const claims = await authenticate(request)
  c.set('role', claims.role)
  const post = request.method === 'POST'
  const profile = request.headers.get(post ? 'content-profile' : 'accept-profile')
  if (profile !== null && profile !== 'public') throw schemaNotExposed()
  if (post)
    for (const key of searchParamsOf(request.url).keys())
      if (key !== 'apikey')
        throw unsupportedParameter(key.slice(0, 64), `${REDEEM} takes its code in the JSON body.`)
  const accept = request.headers.get('accept')
  if (accept !== null && !accept.split(',').some((type) => OBJECT_ACCEPTED.test(type)))
    throw unacceptableMediaType(accept.slice(0, 128))
  const headers: Record<string, string> = { ...cors.headersFor(request.headers.get('origin')) }
  if (profile !== null) headers['Content-Profile'] = 'public'
  return { claims, headers }
}

/** A call's arguments from its JSON body (none when it is empty), as PostgREST reads them. */
function parseArguments(contentType: string | null, text: string): Record<string, unknown> {
  const value = parseJsonBody(contentType, text.trim() === '' ? '{}' : text)
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidJson("Expected a JSON object of the function's arguments")
  return value as Record<string, unknown>
}

/** The function a call names, with exactly its argument names, or PostgREST's 404 for it. */
function findFunction(name: string, args: readonly string[], post: boolean): void {
  const named = args.length === PARAMETERS.length && PARAMETERS.every((parameter) => args.includes(parameter))
  if (name === REDEEM && named) return
  // PostgREST's hint names the closest function; this API has one, and suggests it for its own name.
  const hint = name === REDEEM ? `Perhaps you meant to call the function ${SIGNATURE}` : null
  const shown = [...args]
    .sort()
    .slice(0, MAX_ARGUMENT_NAMES)
    .map((arg) => arg.slice(0, 64))
  throw unknownFunction(name.slice(0, 64), shown, post, hint)
}

function mayExecute({ role }: JwtClaims): void {
  if (role !== 'service_role') throw functionDenied(REDEEM, role)
}

async function redeem(db: Database, keys: LinkKeys, { code }: Record<string, unknown>) {
  // PostgREST would hand a number or an object to a text parameter as its text: no code of ours.
  const result = await redeemInvite(db, keys, typeof code === 'string' ? code : '')
  if ('refused' in result) throw redeemRefused(result.refused)
  return JSON.stringify(result)
}

/**
 * The rpc routes' handlers; their rows are in the REST room's table (rest-app.ts), after its body
 * limit, CORS, gate and rate limit.
 */
export function rpcHandlers(deps: RpcDeps) {
  const keys = linkKeys(deps.secret)
  return {
    call: async (c: Context<RestEnv>) => {
      const call = await openCall(c, deps)
      const args = parseArguments(c.req.header('content-type') ?? null, await c.req.text())
      findFunction(c.req.param('name') ?? '', Object.keys(args), true)
      mayExecute(call.claims)
      const body = await redeem(deps.db, keys, args)
      return new Response(body, { status: 200, headers: { ...call.headers, 'Content-Type': JSON_TYPE } })
    },
    // GET, and HEAD: supabase.rpc(…, { get: true }) puts the arguments in the query.
    read: async (c: Context<RestEnv>) => {
      const call = await openCall(c, deps)
      const args = [...new Set(searchParamsOf(c.req.url).keys())].filter((key) => key !== 'apikey')
      findFunction(c.req.param('name') ?? '', args, false)
      mayExecute(call.claims)
      throw readOnlyCall(
        `${REDEEM} changes the entry: call it with POST (supabase.rpc without { get: true }).`,
      )
    },
    other: async (c: Context<RestEnv>) => {
      await deps.authenticate(c.req.raw)
      throw methodNotAllowed(c.req.method)
    },
  }
}
