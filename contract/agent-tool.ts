import { requestAccessWords } from './request-access-words.ts'
import { answerSchema } from './signup-questions.ts'
import { nameQuestion, signupQuestions } from './site-config.ts'

export { type RequestAccessResult, toolResultOf } from './request-access-words.ts'

/**
 * The one action an agent can take on this site, described once: the imperative registration, the
 * MCP server, llms.txt and the ai-catalog read it from here; the form's WebMCP attributes read its
 * words alone (request-access-words.ts), since the input schema names the lab's questions, which
 * only the tools need: the page's first load carries none of them.
 * See https://webmachinelearning.github.io/webmcp/ and https://developer.chrome.com/docs/ai/webmcp.
 */
export const requestAccessTool = {
  ...requestAccessWords,
  inputSchema: {
    type: 'object',
    properties: {
      email: {
        type: 'string',
        format: 'email',
        description: requestAccessWords.emailDescription,
      },
      // The person's name, if they gave it: proposed, as the answers are, until they keep it.
      [nameQuestion.id]: {
        type: 'string',
        maxLength: nameQuestion.maxLength,
        description:
          "Optional: the person's own name, as they gave it, if they did. The lab greets them by it.",
      },
      // The lab's optional questions (signupQuestions), by id: the person's own answers, if they gave any.
      ...Object.fromEntries(signupQuestions.map((question) => [question.id, answerSchema(question)])),
    },
    required: ['email'],
    // The address, the name and the answers, nothing else; the MCP server refuses any other field.
    additionalProperties: false,
  },
} as const

/** Where the site serves the same tool to agents outside a browser, as a remote MCP server. */
export const MCP_PATH = '/mcp'

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
