import { Component, type ErrorInfo, type ReactNode } from 'react'

interface Props {
  /** Shown instead of the children once one of them has thrown. */
  fallback: ReactNode
  children: ReactNode
}

/**
 * Catches what a part of the page throws while rendering (a bug, or a lazy chunk a redeploy
 * removed) so the visitor sees a message instead of an empty page. The error is logged.
 */
export class ErrorBoundary extends Component<Props, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError() {
    return { failed: true }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('Unexpected Application Error:', error, info.componentStack)
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children
  }
}
