/**
 * The header with which the page's WebMCP tool names its insert (`webmcp`): the same REST insert
 * the form makes, told apart so that the consent record says an agent in the browser made it.
 * Declared by the page, never verified (docs/privacy.md).
 */
export const AGENT_DOOR_HEADER = 'X-Waitlist-Door'
export const WEBMCP_DOOR = 'webmcp'
