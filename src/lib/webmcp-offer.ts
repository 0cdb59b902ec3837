import type { Submit } from './webmcp-register'

/** What the browser passes beside the input: the agent's signal to give up on this call. */
export interface ToolCall {
  signal?: AbortSignal
}

/** The slice of WebMCP's ModelContext this page uses (https://webmachinelearning.github.io/webmcp/). */
export interface ModelContextLike {
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

/** Chrome 150+ exposes document.modelContext; earlier previews and polyfills, navigator.modelContext. */
export function findModelContext(): ModelContextLike | undefined {
  const fromDocument = (document as { modelContext?: ModelContextLike }).modelContext
  const fromNavigator = (navigator as { modelContext?: ModelContextLike }).modelContext
  const context = fromDocument ?? fromNavigator
  return typeof context?.registerTool === 'function' ? context : undefined
}

/**
 * Offers `request_beta_access` to a browser with WebMCP's imperative API (webmcp-register.ts): its
 * code is fetched only there, after hydration, so every other visitor's first load carries none of
 * it. Returns the function that withdraws the offer, or unregisters the tool once registered. A
 * failed download leaves the form's declarative tool to serve.
 */
export function offerRequestAccessTool(submit: Submit): () => void {
  if (!findModelContext()) return () => {}
  let unregister: (() => void) | undefined
  let withdrawn = false
  import('./webmcp-register').then(
    ({ registerRequestAccessTool }) => {
      if (!withdrawn) unregister = registerRequestAccessTool(submit)
    },
    () => {},
  )
  return () => {
    withdrawn = true
    unregister?.()
  }
}
