import { MCP_PATH, requestAccessTool } from '../../contract/agent-tool'
import { type Answers, type CheckedAnswers, checkAnswers } from '../../contract/signup-questions'
import { nameQuestion, signupQuestions } from '../../contract/site-config'
import type { WaitlistOutcome } from '../../contract/waitlist-outcome'

/**
 * The WebMCP tool's answers to the lab's questions, in the tool's own chunk (webmcp-offer.ts loads
 * it only where a browser offers WebMCP). The page's own insert stays the one call the
 * specification names, with the address alone; answers go to the site's own MCP tool, whose
 * server-side check (the same checkAnswers) decides and stores them with a new entry.
 */

/** What the tool takes besides the address: the person's name, then the lab's questions. */
export const TOOL_FIELDS = [nameQuestion, ...signupQuestions]

/** The name and answers an agent gave, checked here first: a wrong one is refused before any request. */
export const checkToolAnswers = (input: Readonly<Record<string, unknown>>): CheckedAnswers =>
  checkAnswers(TOOL_FIELDS, input)

// MCP 2026-07-28: no handshake, each request names its revision and its caller in `_meta` and in headers.
const REVISION = '2026-07-28'
const CLIENT = { name: 'webmcp', version: '1.0.0' }

type ToolAnswer = {
  result?: { structuredContent?: { status?: unknown; reason?: unknown } }
  error?: { message?: unknown }
}

/**
 * The tool's structured answer as the page's outcome; a refusal (the tool's, or the endpoint's:
 * the rate limit) keeps the server's reason, in words.
 */
function outcomeOf(answer: ToolAnswer): WaitlistOutcome {
  const content = answer.result?.structuredContent
  if (content?.status === 'submitted') return { status: 'submitted' }
  if (content?.status === 'already_registered') return { status: 'already_registered' }
  const reason = content?.reason ?? answer.error?.message
  return { status: 'error', error: typeof reason === 'string' ? reason : 'The request was not stored.' }
}

/**
 * One `tools/call` of `request_beta_access` on this site's /mcp (same origin, which its Origin
 * guard admits), with the address and the answers.
 */
export async function signUpWithAnswers(email: string, answers: Answers): Promise<WaitlistOutcome> {
  const { name } = requestAccessTool
  const meta = {
    'io.modelcontextprotocol/protocolVersion': REVISION,
    'io.modelcontextprotocol/clientInfo': CLIENT,
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  try {
    const response = await fetch(MCP_PATH, {
      method: 'POST',
      headers: {
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
        'Mcp-Protocol-Version': REVISION,
        'Mcp-Method': 'tools/call',
        'Mcp-Name': name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: { email, ...answers }, _meta: meta },
      }),
    })
    return outcomeOf((await response.json()) as ToolAnswer)
  } catch (error) {
    // The server unreachable, or an answer that is not JSON: the visitor sees the generic error.
    return { status: 'error', error }
  }
}
