import { requestAccessTool, toolResultOf } from '../../contract/agent-tool'
import type { WaitlistOutcome } from '../../contract/waitlist-outcome'

/** What the browser passes beside the input: the agent's signal to give up on this call. */
interface ToolCall {
  signal?: AbortSignal
}

/** The slice of WebMCP's ModelContext this page uses (https://webmachinelearning.github.io/webmcp/). */
interface ModelContextLike {
  registerTool(
    tool: {
      name: string
      title: string
      description: string
      inputSchema: object
      annotations: Record<string, boolean>
      execute: (input: Record<string, unknown>, call?: ToolCall) => Promise<unknown>
    },
    options?: { signal?: AbortSignal },
  ): unknown
  unregisterTool?(name: string): void
}

type Submit = (email: string) => Promise<WaitlistOutcome | undefined>

/**
 * The tool writes to the waitlist and may send the address a confirmation e-mail, which cannot be
 * taken back: `consequentialHint`, which Chrome reads to ask the person before an agent calls it.
 * Its answer is the page's own words, so nothing in it is untrusted content.
 */
const ANNOTATIONS = { readOnlyHint: false, consequentialHint: true, untrustedContentHint: false }

/** Chrome 150+ exposes document.modelContext; earlier previews and polyfills, navigator.modelContext. */
function findModelContext(): ModelContextLike | undefined {
  const fromDocument = (document as { modelContext?: ModelContextLike }).modelContext
  const fromNavigator = (navigator as { modelContext?: ModelContextLike }).modelContext
  const context = fromDocument ?? fromNavigator
  return typeof context?.registerTool === 'function' ? context : undefined
}

/** `work`, or the signal's reason as soon as the agent gives up, whichever comes first. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

/**
 * Registers `request_beta_access` with the browser's WebMCP model context, when there is one;
 * returns the function that unregisters it. Its execute runs `submit`, the form's own path.
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
  const { name, title, description, inputSchema } = requestAccessTool
  const controller = new AbortController()
  let registered = false
  const execute = async (input: Record<string, unknown>, call?: ToolCall) => {
    call?.signal?.throwIfAborted()
    const email = typeof input?.email === 'string' ? input.email : ''
    return toolResultOf(await unlessAborted(submit(email), call?.signal))
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
