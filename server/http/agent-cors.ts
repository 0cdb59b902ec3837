/**
 * The files agents and registries read may be fetched from any origin (a browser-based agent, a
 * registry's web crawler): ARD's publishing guide asks for `Access-Control-Allow-Origin: *` on the
 * catalog, and llms.txt is as public. They are static and carry no credentials, so this is safe.
 */
const AGENT_FILES = new Set(['/.well-known/ai-catalog.json', '/llms.txt', '/llms-full.txt'])

export function withAgentCors(path: string, response: Response): Response {
  if (AGENT_FILES.has(path)) response.headers.set('Access-Control-Allow-Origin', '*')
  return response
}
