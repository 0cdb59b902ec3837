import { MCP_PATH, requestAccessTool } from '../../contract/agent-tool.ts'
import type { SiteConfig } from '../../contract/site-config'
import { signupQuestions } from '../../contract/site-config.ts'
import { absoluteUrl } from '../../contract/site-url.ts'
import type { SiteHost } from './site-host.ts'

function listOf(words: readonly string[]): string {
  if (words.length < 2) return words.join('')
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

/** The tool's optional answers, as an agent needs them: each id, with its choices or its limit. */
function answersList(): string {
  const each = signupQuestions.map((question) =>
    question.kind === 'choice'
      ? `\`${question.id}\` (one of ${question.choices.map((choice) => `“${choice}”`).join(', ')})`
      : `\`${question.id}\` (“${question.label}”, up to ${question.maxLength} characters)`,
  )
  return listOf(each)
}

/**
 * How an agent asks for access on a person's behalf: shared by llms.txt and llms-full.txt. A static
 * host has no /mcp and takes no POST, so its files offer only the page and its WebMCP tool.
 */
function howToRequestAccess(host: SiteHost): string {
  const { name } = requestAccessTool
  const server = host === 'server'
  return [
    'An AI agent may request beta access for a person who asked it to, with that person’s own e-mail address:',
    '',
    `- In a browser with WebMCP: call the tool \`${name}\` with \`{"email": "…"}\`. It answers ` +
      '`{"status": "submitted" | "already_registered" | "error", "message": "…"}` and the page shows the ' +
      'visitor the same notification as when they submit the form themselves.',
    ...(server
      ? [
          `- With MCP, from any agent outside a browser: connect to the remote MCP server at \`${absoluteUrl(MCP_PATH)}\` ` +
            `(Streamable HTTP, no API key) and call the same tool \`${name}\`. It answers the same status and message, ` +
            'as text and as structured content; a refused address is a result with `isError: true` and the reason.',
          `- Either tool also takes the person’s own answers to the lab’s optional questions, if they gave any: ${answersList()}. ` +
            'They are kept with a new entry only. A wrong answer is refused with `status: "error"` and a `reason` ' +
            '(over MCP, `isError: true`), and nothing is stored, not even the address.',
        ]
      : []),
    '- On the page: type the address into the e-mail field of the access-request form and press “Request Access”.',
    ...(server
      ? [
          `- Over HTTP: \`POST ${absoluteUrl('/')}\` with the form field \`email\` (\`application/x-www-form-urlencoded\`). The answer is a ` +
            '303 redirect to `/?waitlist=submitted`, `/?waitlist=already_registered` or `/?waitlist=error`.',
        ]
      : []),
  ].join('\n')
}

/** /llms.txt per https://llmstxt.org/: H1, a one-paragraph summary, details, then link lists. */
export function llmsTxt(config: SiteConfig, host: SiteHost = 'server'): string {
  return [
    `# ${config.labName}`,
    '',
    `> ${config.labName} is an applied-research and product lab building ${config.tagline.toLowerCase()}. ` +
      `${config.pitch} It is based in ${config.city} and is accepting requests for its private beta.`,
    '',
    howToRequestAccess(host),
    '',
    '## Pages',
    '',
    `- [About and beta access](${absoluteUrl('/#about')}): what the first product does, and the form to request access to the private beta`,
    `- [Join us](${absoluteUrl('/#join-us')}): the team, its backing, and the roles the lab is hiring for`,
    '',
    '## Join us',
    '',
    `- [Careers page](${config.careersUrl}): open roles in ${listOf(config.hiringAreas)}`,
    `- [Hiring contact](mailto:${config.hiringEmail}): write to the team directly`,
    '',
    '## Optional',
    '',
    `- [Full text of the site](${absoluteUrl('/llms-full.txt')}): every section of the page in Markdown`,
    `- [Agent catalog](${absoluteUrl('/.well-known/ai-catalog.json')}): the site’s agent resources as an ARD ai-catalog`,
    '',
  ].join('\n')
}

/** /llms-full.txt: the whole page as Markdown, so an agent needs no HTML at all. */
export function llmsFullTxt(config: SiteConfig, host: SiteHost = 'server'): string {
  return [
    `# ${config.labName}`,
    '',
    `> ${config.tagline}`,
    '',
    '## About',
    '',
    config.pitch,
    '',
    'Request access to the private beta: the form on the page takes an e-mail address.',
    '',
    '## For AI agents',
    '',
    howToRequestAccess(host),
    '',
    '## Join us',
    '',
    config.team,
    '',
    config.backing,
    '',
    `We are hiring across ${listOf(config.hiringAreas)}.`,
    '',
    `Write to us at [${config.hiringEmail}](mailto:${config.hiringEmail}) or see ` +
      `[open roles on our careers page](${config.careersUrl}).`,
    '',
    '## Where we are',
    '',
    `${config.city}. [Home page](${absoluteUrl('/')}).`,
    '',
  ].join('\n')
}
