import { findModelContext } from './model-context'
import type { Submit } from './webmcp-register'

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
