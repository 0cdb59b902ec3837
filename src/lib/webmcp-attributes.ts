/**
 * WebMCP's declarative attributes (https://github.com/webmachinelearning/webmcp, declarative API):
 * a form with `toolname` and `tooldescription` is a tool an in-browser agent can call. React 19
 * passes unknown lowercase attributes through to the DOM as they are; this only teaches TypeScript.
 */
import 'react'

declare module 'react' {
  interface FormHTMLAttributes<T> {
    toolname?: string
    tooldescription?: string
    /** Present: the browser submits the form itself once an agent has filled it in. */
    toolautosubmit?: ''
  }
  interface InputHTMLAttributes<T> {
    /** The parameter's title in the tool's input schema (JSON Schema `title`). */
    toolparamtitle?: string
    toolparamdescription?: string
  }
}
