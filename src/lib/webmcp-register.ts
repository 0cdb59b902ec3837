import { requestAccessTool, toolResultOf } from '../../contract/agent-tool'
import type { WaitlistOutcome } from '../../contract/waitlist-outcome'

/** The slice of WebMCP's ModelContext this page uses (https://webmachinelearning.github.io/webmcp/). */
interface ModelContextLike {
  registerTool(
    tool: {
      name: string
      description: string
      inputSchema: object
      execute: (input: Record<string, unknown>) => Promise<unknown>
    },
    options?: { signal?: AbortSignal },
  ): unknown
  unregisterTool?(name: string): void
}

type Submit = (email: string) => Promise<WaitlistOutcome | undefined>

/** Chrome 150+ exposes document.modelContext; earlier previews and polyfills, navigator.modelContext. */
function findModelContext(): ModelContextLike | undefined {
  const fromDocument = (document as { modelContext?: ModelContextLike }).modelContext
  const fromNavigator = (navigator as { modelContext?: ModelContextLike }).modelContext
  const context = fromDocument ?? fromNavigator
  return typeof context?.registerTool === 'function' ? context : undefined
}

/**
 * Registers `request_beta_access` with the browser's WebMCP model context, when there is one;
 * returns the function that unregisters it. Its execute runs `submit`, the form's own path.
 *
 * Where the browser also reads the form's declarative `toolname` (Chrome with WebMCP on), the form
 * already is this tool and the browser refuses a second of the same name: that refusal is expected
 * and ignored, and the declarative tool, answered through the same `submit`, serves.
 */
export function registerRequestAccessTool(submit: Submit): () => void {
  const context = findModelContext()
  if (!context) return () => {}
  const { name, description, inputSchema } = requestAccessTool
  const controller = new AbortController()
  let registered = false
  const execute = async (input: Record<string, unknown>) => {
    const email = typeof input?.email === 'string' ? input.email : ''
    return toolResultOf(await submit(email))
  }
  try {
    const result = context.registerTool(
      { name, description, inputSchema, execute },
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
