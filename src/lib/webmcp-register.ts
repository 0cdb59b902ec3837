import { type RequestAccessResult, requestAccessTool, toolResultOf } from '../../contract/agent-tool'
import type { WaitlistOutcome } from '../../contract/waitlist-outcome'
import { confirmSignups } from './confirm-signups'
import { findModelContext, type ToolCall } from './model-context'
import { checkToolAnswers, signUpWithAnswers, TOOL_FIELDS } from './webmcp-answers'

/** The form's submit; `send` replaces the page's insert for this one call (the answers' path). */
export type Submit = (
  email: string,
  options?: { send?: (email: string) => Promise<WaitlistOutcome>; byAgent?: boolean },
) => Promise<WaitlistOutcome | undefined>

/** Every call of the tool: the page's insert names the agent's door (submit-waitlist.ts). */
const BY_AGENT = { byAgent: true } as const

type Input = Record<string, unknown>

/**
 * The tool writes to the waitlist and may send the address a confirmation e-mail, which cannot be
 * taken back: `consequentialHint`, which Chrome reads to ask the person before an agent calls it.
 * Its answer is the page's own words, so nothing in it is untrusted content.
 */
const ANNOTATIONS = { readOnlyHint: false, consequentialHint: true, untrustedContentHint: false }

/** `work`, or the signal's reason as soon as the agent gives up, whichever comes first. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

// A page its own server serves has /mcp beside it, which stores answers; a build for a static host
// (VITE_SUPABASE_URL) has none there, so its tool takes the address alone, as the form does.
const TAKES_ANSWERS = !import.meta.env.VITE_SUPABASE_URL
const { email: emailProperty } = requestAccessTool.inputSchema.properties
const inputSchema = TAKES_ANSWERS
  ? requestAccessTool.inputSchema
  : { ...requestAccessTool.inputSchema, properties: { email: emailProperty } }

// A name counts as an answer: it too goes through the site's MCP tool, which stores it.
const givesAnswers = (input: Input) => TOOL_FIELDS.some((question) => input?.[question.id] !== undefined)

/**
 * What the agent reads: the outcome in the page's words (with confirmation on, to confirm from the
 * inbox) and the next step, and a refusal's reason when it has one.
 */
function resultOf(outcome: WaitlistOutcome | undefined): RequestAccessResult & { reason?: string } {
  const result = toolResultOf(outcome, confirmSignups())
  if (outcome?.status !== 'error' || typeof outcome.error !== 'string') return result
  return { ...result, reason: outcome.error }
}

/**
 * A call with answers: checked here first (a wrong one is refused with no request at all), then the
 * form's submit with the site's MCP tool in place of the page's insert, so the visitor sees the same
 * `Submitting...` and outcome, and the server checks and stores the answers (webmcp-answers.ts).
 */
async function submitWithAnswers(submit: Submit, input: Input, email: string, signal?: AbortSignal) {
  const checked = checkToolAnswers(input)
  if ('problem' in checked)
    return resultOf({ status: 'error', error: `Invalid arguments: ${checked.problem}. Nothing was stored.` })
  const { answers } = checked
  // Only blank answers: none to store, so the page's own insert, as with none at all.
  if (Object.keys(answers).length === 0) return resultOf(await unlessAborted(submit(email, BY_AGENT), signal))
  const send = (address: string) => signUpWithAnswers(address, answers)
  return resultOf(await unlessAborted(submit(email, { send }), signal))
}

/**
 * Registers `request_beta_access` with the browser's WebMCP model context, when there is one;
 * returns the function that unregisters it. Its execute runs `submit`, the form's own path; with
 * answers to the lab's questions, through the site's MCP tool (above).
 *
 * A call the agent has already given up on sends nothing. One given up on while its request is on
 * the way answers the agent with the abort at once; the request itself completes and the page shows
 * the visitor its outcome, since the insert may already have been made.
 *
 * Where the browser also reads the form's declarative `toolname` (Chrome with WebMCP on), the form
 * already is this tool and the browser refuses a second of the same name: that refusal is expected
 * and ignored, and the declarative tool, answered through the same `submit`, serves.
 */
export function registerRequestAccessTool(submit: Submit): () => void {
  const context = findModelContext()
  if (!context) return () => {}
  const { name, title, description } = requestAccessTool
  const controller = new AbortController()
  let registered = false
  const execute = async (input: Input, call?: ToolCall) => {
    call?.signal?.throwIfAborted()
    const email = typeof input?.email === 'string' ? input.email : ''
    if (TAKES_ANSWERS && givesAnswers(input)) return submitWithAnswers(submit, input, email, call?.signal)
    return resultOf(await unlessAborted(submit(email, BY_AGENT), call?.signal))
  }
  try {
    const result = context.registerTool(
      { name, title, description, inputSchema, annotations: ANNOTATIONS, execute },
      { signal: controller.signal },
    )
    registered = true
    Promise.resolve(result).catch(() => {
      registered = false
    })
  } catch {
    // A synchronous refusal (duplicate name in older previews): the declarative form serves.
  }
  return () => {
    controller.abort()
    if (registered) context.unregisterTool?.(name)
  }
}
