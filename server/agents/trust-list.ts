import * as z from 'zod'

/**
 * The signature agents the lab trusts (SIGNATURE_AGENTS, docs/configuration.md, ADR 121): each by
 * its origin, with the name the lab shows for it. Only these agents' key directories are ever
 * fetched; a signature naming any other agent is recorded as declared ("unlisted agent").
 *
 * The value is a comma-separated list of `ORIGIN=Display name` items. `default` stands for the
 * documented default list below, and `-ORIGIN` takes an agent out of what came before it, so a lab
 * adds or removes agents without copying the list: `default,-https://chatgpt.com`. Origins are
 * HTTPS; a loopback one (http://127.0.0.1:PORT, http://[::1]:PORT, http://localhost:PORT) only
 * when the lab lists it itself, for an agent it runs on the same machine (and the tests).
 */

export interface TrustedAgent {
  /** scheme://host[:port], as URL.origin writes it. */
  origin: string
  /** What the lab, the studio and the person's page call it: "ChatGPT agent". */
  name: string
}

/** Origin → the agent, for the one look-up a signed request needs. */
export type TrustList = ReadonlyMap<string, TrustedAgent>

/**
 * The known public signers whose operator documents their Signature-Agent origin (ADR 125,
 * docs/signed-agents.md#the-trust-list-signature_agents), one `ORIGIN=Name` each:
 *   - OpenAI's ChatGPT agent: `Signature-Agent: "https://chatgpt.com"`
 *     (https://help.openai.com/en/articles/11845367-chatgpt-agent-allowlisting);
 *   - Google-Agent, on the requests Google signs: `Signature-Agent: g="https://agent.bot.goog"`
 *     (https://developers.google.com/crawling/docs/crawlers-fetchers/allow-google-agent).
 * Browserbase, Goose, Anchor and Amazon AgentCore Browser sign too, but their own documentation
 * names no origin (AgentCore's directories are one host per AWS region): the lab adds them once
 * it has read one. Both are HTTPS origins, so their directories are fetched over HTTPS only.
 */
export const DEFAULT_SIGNATURE_AGENTS = [
  'https://chatgpt.com=ChatGPT agent',
  'https://agent.bot.goog=Google-Agent',
].join(',')

const MAX_NAME = 100
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])

/** Whether an origin is this machine's own: fetched over plain HTTP only when the lab lists it. */
export const isLoopback = (url: URL) => LOOPBACK_HOSTS.has(url.hostname)

/** The origin an item names, or why it is not one the lab may list. */
function originOf(text: string): { origin: string } | { problem: string } {
  if (!URL.canParse(text)) return { problem: `"${text}" is not an address` }
  const url = new URL(text)
  if (url.username || url.password || url.search || url.hash || !['', '/'].includes(url.pathname))
    return { problem: `"${text}" is not an origin (scheme://host[:port], no path)` }
  if (url.protocol === 'https:') return { origin: url.origin }
  if (url.protocol === 'http:' && isLoopback(url)) return { origin: url.origin }
  return { problem: `"${text}" is not https:// (plain http:// only for a loopback origin)` }
}

/** One item of the list: `default`, `-ORIGIN`, or `ORIGIN=Name`; applied to `agents` in order. */
function applyItem(item: string, agents: Map<string, TrustedAgent>): string | undefined {
  if (item === 'default') {
    for (const [origin, agent] of parseTrustList(DEFAULT_SIGNATURE_AGENTS)) agents.set(origin, agent)
    return undefined
  }
  if (item.startsWith('-')) {
    const named = originOf(item.slice(1).trim())
    if ('problem' in named) return named.problem
    agents.delete(named.origin)
    return undefined
  }
  const equals = item.indexOf('=')
  if (equals < 0) return `"${item}" names no display name (ORIGIN=Name)`
  const named = originOf(item.slice(0, equals).trim())
  if ('problem' in named) return named.problem
  const name = item.slice(equals + 1).trim()
  if (name === '' || name.length > MAX_NAME)
    return `"${item}": the display name is 1 to ${MAX_NAME} characters`
  agents.set(named.origin, { origin: named.origin, name })
  return undefined
}

/** The list a value names; throws with every problem in one message. */
export function parseTrustList(value: string): TrustList {
  const agents = new Map<string, TrustedAgent>()
  const problems = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .flatMap((item) => applyItem(item, agents) ?? [])
  if (problems.length > 0) throw new Error(problems.join('; '))
  return agents
}

/** SIGNATURE_AGENTS, merged into the server's env schema (server/boot/env.ts). */
export const signatureAgentsEnv = {
  /** The signature agents whose Web Bot Auth signatures are verified (ADR 121); unset, the default. */
  SIGNATURE_AGENTS: z
    .string()
    .optional()
    .transform((value, context): TrustList => {
      try {
        return parseTrustList(value === undefined || value.trim() === '' ? DEFAULT_SIGNATURE_AGENTS : value)
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message })
        return z.NEVER
      }
    }),
}
