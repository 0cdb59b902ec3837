import { outcomeMessages, type WaitlistOutcome } from './waitlist-outcome.ts'

/**
 * The one action an agent can take on this site, described once: the form's WebMCP attributes,
 * the imperative registration, llms.txt and the ai-catalog all read it from here.
 * See https://webmachinelearning.github.io/webmcp/ and https://developer.chrome.com/docs/ai/webmcp.
 */
export const requestAccessTool = {
  name: 'request_beta_access',
  /** What a browser or client shows a person for the tool. */
  title: 'Request beta access',
  description:
    "Request access to the lab's private beta by joining the waitlist with an e-mail address. " +
    "Returns status 'submitted', 'already_registered' (the address is already on the waitlist) or 'error'.",
  emailDescription: 'The e-mail address to add to the private beta waitlist.',
  /** The e-mail field's label on the page, and its WebMCP `toolparamtitle`. */
  emailTitle: 'Email address',
  inputSchema: {
    type: 'object',
    properties: {
      email: {
        type: 'string',
        format: 'email',
        description: 'The e-mail address to add to the private beta waitlist.',
      },
    },
    required: ['email'],
    // The tool takes the address and nothing else; the MCP server refuses any other field.
    additionalProperties: false,
  },
} as const

/** Where the site serves the same tool to agents outside a browser, as a remote MCP server. */
export const MCP_PATH = '/mcp'

/** What the tool's execute resolves to: the outcome and the words the page shows for it. */
export interface RequestAccessResult {
  status: 'submitted' | 'already_registered' | 'error'
  message: string
}

/** The tool's answer: the outcome and the words the specification shows a person for it. */
export function toolResultOf(outcome: WaitlistOutcome | undefined): RequestAccessResult {
  const status = outcome?.status ?? 'error'
  const { title, description } = outcomeMessages[status]
  return { status, message: `${title} ${description}` }
}

/**
 * The MCP revisions /mcp answers, newest first: 2026-07-28 natively, and the 2025 (and 2024)
 * revisions the SDK's stateless legacy path negotiates in `initialize`. The server card lists
 * them; tests/server/mcp-server-card.test.ts checks them against the running server.
 */
export const MCP_PROTOCOL_VERSIONS = [
  '2026-07-28',
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
] as const

/** Where the server card lives: the MCP endpoint's URL + `/server-card`, as the extension reserves. */
export const MCP_SERVER_CARD_PATH = `${MCP_PATH}/server-card` as const
