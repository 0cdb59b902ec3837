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
