import type { CallToolResult, Tool } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { type RequestAccessResult, requestAccessTool, toolResultOf } from '../../../contract/agent-tool'
import type { Logger } from '../../base/log'
import type { Database } from '../../db/database'
import type { AddressPolicy } from '../../waitlist/address-policy/address-policy'
import { insertWaitlistEmail } from '../../waitlist/insert'

/** What the tool answers, as structured content: the page's outcome and words, and why, when it failed. */
const outputSchema: Tool['outputSchema'] = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['submitted', 'already_registered', 'error'] },
    message: { type: 'string', description: 'The words the page shows a person for this outcome.' },
    reason: { type: 'string', description: 'Why the request was not stored, when it was not.' },
  },
  required: ['status', 'message'],
  additionalProperties: false,
}

/** The same tool the page declares to in-browser agents: name, description and input schema from one module. */
export const requestAccessDefinition: Tool = {
  name: requestAccessTool.name,
  description: requestAccessTool.description,
  inputSchema: { ...requestAccessTool.inputSchema, required: [...requestAccessTool.inputSchema.required] },
  outputSchema,
  annotations: {
    title: 'Request beta access',
    readOnlyHint: false,
    destructiveHint: false,
    // A second call with the same address changes nothing; it answers already_registered.
    idempotentHint: true,
    openWorldHint: false,
  },
}

// The declared input schema, as a check: the address, a string, and no other field.
const Arguments = z.strictObject(
  {
    email: z.string({
      error: (issue) =>
        issue.input === undefined
          ? 'the argument "email" is required'
          : 'the argument "email" must be a string',
    }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unexpected argument ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}: the tool takes only "email"`
        : undefined,
  },
)

const REFUSED =
  'The address was refused: the waitlist takes one valid e-mail address (as an HTML e-mail field defines it), ' +
  'without surrounding spaces, of at most 254 characters.'
const FAILED = 'The request could not be stored just now; try again in a moment.'

function resultOf(answer: RequestAccessResult & { reason?: string }, isError: boolean): CallToolResult {
  const text = answer.reason ? `${answer.message} ${answer.reason}` : answer.message
  return { content: [{ type: 'text', text }], structuredContent: { ...answer }, isError }
}

function errorResult(reason: string): CallToolResult {
  return resultOf({ ...toolResultOf({ status: 'error', error: reason }), reason }, true)
}

/** What a signup through the tool may be told: when it stored one, and which addresses to refuse. */
export interface SignupHooks {
  /** Called when a new entry was stored (not for an address already listed). */
  onStored?: () => void
  /** Addresses refused before anything is stored (ADR 060), with the REST API's message and hint. */
  policy?: AddressPolicy
}

/**
 * Runs `request_beta_access`: the page's insert, as anon. A refused address or a database failure
 * is a tool result with isError, so the agent reads why instead of a protocol error.
 */
export async function callRequestAccess(
  db: Database,
  log: Logger,
  args: unknown,
  { onStored, policy }: SignupHooks = {},
): Promise<CallToolResult> {
  const parsed = Arguments.safeParse(args ?? {})
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => issue.message).join('; ')
    return errorResult(`Invalid arguments: ${problems}. Call it with {"email": "…"}.`)
  }
  const refusal = await policy?.refusal(parsed.data.email)
  if (refusal) return errorResult(`${refusal.message}: ${refusal.details} ${refusal.hint}`)
  const result = await insertWaitlistEmail(db, parsed.data.email)
  if (result.status === 'submitted') onStored?.()
  switch (result.status) {
    case 'submitted':
    case 'already_registered':
      return resultOf(toolResultOf(result), false)
    case 'refused':
      return errorResult(REFUSED)
    case 'failed':
      log.error('MCP request_beta_access failed:', result.error)
      return errorResult(FAILED)
  }
}
