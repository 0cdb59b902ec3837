import type { CallToolResult, Tool } from '@modelcontextprotocol/server'
import * as z from 'zod'
import { type RequestAccessResult, requestAccessTool, toolResultOf } from '../../../contract/agent-tool'
import { checkAnswers } from '../../../contract/signup-questions'
import { nameQuestion, signupQuestions } from '../../../contract/site-config'
import type { Logger } from '../../base/log'
import { type SignupDeps, type SignupOrigin, signUpOne } from '../../waitlist/signup'

/** What the tool answers, as structured content: the page's outcome and words, and why, when it failed. */
const outputSchema: Tool['outputSchema'] = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['submitted', 'already_registered', 'error'] },
    message: { type: 'string', description: 'The words the page shows a person for this outcome.' },
    reason: { type: 'string', description: 'Why the request was not stored, when it was not.' },
    next_step: {
      type: 'string',
      enum: ['confirm_email', 'wait_for_invitation'],
      description:
        'After a success, what the person does next; tell them. confirm_email: they must follow the link ' +
        'in the confirmation e-mail just sent to them, or the request lapses. wait_for_invitation: nothing; ' +
        'the lab writes when it invites them.',
    },
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

const ARGUMENT_NAMES = Object.keys(requestAccessTool.inputSchema.properties)
  .map((name) => JSON.stringify(name))
  .join(', ')

// What the tool takes besides the address: the person's name, then the lab's questions.
const ASKED = [nameQuestion, ...signupQuestions]

// The declared input schema, as a check: the address, a string; the name and the answers, each
// checked below by checkAnswers (the one check every door makes); no other field.
const Arguments = z.strictObject(
  {
    email: z.string({
      error: (issue) =>
        issue.input === undefined
          ? 'the argument "email" is required'
          : 'the argument "email" must be a string',
    }),
    ...Object.fromEntries(ASKED.map((question) => [question.id, z.unknown().optional()])),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unexpected argument ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}: the tool takes only ${ARGUMENT_NAMES}`
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

/**
 * What the tool's call needs: the signup path, and where the call came from: the source it counts
 * under (`mcp`, the client's name) and the client's network.
 */
export interface ToolDeps {
  signup: SignupDeps
  log: Logger
  origin?: SignupOrigin
  /** CONFIRM_SIGNUPS, as the page says it: a success then tells the person to confirm from their inbox. */
  confirmSignups?: boolean
}

/**
 * Runs `request_beta_access`: a door to the one signup (server/waitlist/signup.ts), as anon, with
 * the person's optional name and answers, stored with a new entry only, and only proposed while the person
 * has not confirmed the address (entry-answers.ts). A wrong answer, a refused address or
 * a database failure is a tool result with isError, so the agent reads why instead of a protocol error.
 */
export async function callRequestAccess(
  { signup, log, origin, confirmSignups }: ToolDeps,
  args: unknown,
): Promise<CallToolResult> {
  const parsed = Arguments.safeParse(args ?? {})
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => issue.message).join('; ')
    return errorResult(`Invalid arguments: ${problems}. Call it with {"email": "…"}.`)
  }
  // Checked before the signup: a wrong answer stores nothing, not even the address.
  const checked = checkAnswers(ASKED, parsed.data)
  if ('problem' in checked) return errorResult(`Invalid arguments: ${checked.problem}. Nothing was stored.`)
  const outcome = await signUpOne(signup, parsed.data.email, origin, checked.answers)
  switch (outcome.status) {
    case 'submitted':
    case 'already_registered':
      return resultOf(toolResultOf(outcome, confirmSignups), false)
    case 'refused': {
      const { policy } = outcome
      return errorResult(policy ? `${policy.message}: ${policy.details} ${policy.hint}` : REFUSED)
    }
    case 'failed':
      log.error('MCP request_beta_access failed:', outcome.error)
      return errorResult(FAILED)
  }
}
