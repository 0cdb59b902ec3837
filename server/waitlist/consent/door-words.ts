import { createHash } from 'node:crypto'
import { basename } from 'node:path'
import { requestAccessTool, toolResultOf } from '../../../contract/agent-tool'
import { formWords } from '../../../contract/form-words'
import { outcomeMessageFor } from '../../../contract/waitlist-outcome'

/**
 * The ways in a consent record names (docs/privacy.md says how each is told apart):
 *   page    the form on the site's page, its insert sent from one of the site's own origins;
 *   form    the same form posted before any script ran (no JavaScript);
 *   api     the REST insert from anything else (a program, another site's script), or the owner's key;
 *   mcp     the MCP tool, called by a program (no Origin: not a page);
 *   webmcp  the tool in the visitor's browser (WebMCP), through the page's insert or /mcp;
 *   import  the owner's `import` of a file.
 */
export const CONSENT_DOORS = ['page', 'form', 'api', 'mcp', 'webmcp', 'import'] as const
export type ConsentDoor = (typeof CONSENT_DOORS)[number]

export const isConsentDoor = (value: string): value is ConsentDoor =>
  (CONSENT_DOORS as readonly string[]).includes(value)

/** One version of the words a door showed: its text, its SHA-256, and the version entries name. */
export interface WordsVersion {
  version: string
  hash: Buffer
  text: string
}

/** The version of a text: the first 16 hex digits of its SHA-256 (private.consent_words checks it). */
export function wordsVersion(text: string): WordsVersion {
  const hash = createHash('sha256').update(text, 'utf8').digest()
  return { version: hash.subarray(0, 8).toString('hex'), hash, text }
}

/** What the signup's success says, as the page's toast and the no-script answer page say it. */
const successOf = (confirmSignups: boolean) => {
  const { title, description } = outcomeMessageFor('submitted', confirmSignups)
  return `${title} ${description}`
}

/**
 * The page's form and the no-script form (the same form, before and after its script): the field's
 * label and placeholder, the button, and the words a success shows.
 */
export function formText(confirmSignups: boolean): string {
  return [
    `Field label: ${formWords.label}`,
    `Field placeholder: ${formWords.placeholder}`,
    `Button: ${formWords.button}`,
    `On success: ${successOf(confirmSignups)}`,
  ].join('\n')
}

/**
 * The request_beta_access tool, at /mcp and in the browser (WebMCP): its description and the
 * answer a success gives the agent (the tool's own result, toolResultOf: the page's own words when
 * signups are confirmed by mail).
 */
export function toolText(confirmSignups: boolean): string {
  const { name, title, description } = requestAccessTool
  return [
    `Tool: ${name} (${title})`,
    `Description: ${description}`,
    `On success: ${toolResultOf({ status: 'submitted' }, confirmSignups).message}`,
  ].join('\n')
}

/**
 * What `import` records for a line of a file that carries no consent of its own: the file's name
 * (not its folder), and that the words the person saw are not known here.
 */
export function importText(path: string): string {
  return `Imported by the lab from the file ${basename(path).slice(0, 200)}; the words this person was shown are not known to the list.`
}

/** The version each door's signups point to: none for `api` (a program is shown nothing). */
export type DoorWords = Readonly<Partial<Record<ConsentDoor, string>>>

/** The texts a server's doors show, by door, for the given confirmation setting. */
export function serverDoorTexts(
  confirmSignups: boolean,
): Readonly<Record<'page' | 'form' | 'mcp' | 'webmcp', string>> {
  const form = formText(confirmSignups)
  const tool = toolText(confirmSignups)
  return { page: form, form, mcp: tool, webmcp: tool }
}
