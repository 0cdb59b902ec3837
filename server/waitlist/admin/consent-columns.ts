import { escapeLiteral } from 'pg'
import { isoUtc } from '../../db/iso-utc'
import { CONSENT_DOORS, isConsentDoor } from '../consent/door-words'

/**
 * The consent record's columns of `export` and `import` (ADR 096), after the answers: when, the
 * door, the words' version, the agent as declared (JSON: {"name","version"}), and the network the
 * confirmation came from. `import` keeps them; a line without a door gets door `import` and the
 * version of a line naming its file (import-staging.ts, consentSql).
 */

const VERSION = /^[0-9a-f]{16}$/
// The consent record's cut (private.entry_consent): IPv4 /24, IPv6 /48, as text PostgreSQL writes.
const NETWORK = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.0\/24|[0-9a-f:]+\/48)$/

const quoted = (value: string) => JSON.stringify(value.slice(0, 40))

/** An agent cell: {"name": 1-100 characters, "version"?: 1-40}, nothing else. */
function agentProblem(value: string): string | undefined {
  let agent: unknown
  try {
    agent = JSON.parse(value)
  } catch {
    return `consent_agent ${quoted(value)} is not JSON such as {"name":"claude-code","version":"1.0"}`
  }
  const { name, version, ...rest } = (agent ?? {}) as Record<string, unknown>
  const fits = (text: unknown, max: number) =>
    typeof text === 'string' && text.length >= 1 && text.length <= max
  if (typeof agent !== 'object' || Array.isArray(agent) || Object.keys(rest).length > 0 || !fits(name, 100))
    return `consent_agent ${quoted(value)} is not {"name": 1-100 characters, "version": 1-40}`
  if (version !== undefined && version !== null && !fits(version, 40))
    return `consent_agent ${quoted(value)}: its version is not 1-40 characters`
  return undefined
}

/** A column of private.entry_consent, in entry-columns.ts's shape (EntryColumn): empty is none. */
export interface ConsentColumn {
  name: string
  read: string
  type: string
  table: 'entry_consent'
  whenMissing: () => string
  problem(value: string): string | undefined
}

function column(
  name: string,
  read: string,
  type: string,
  problem: (value: string) => string | undefined,
): ConsentColumn {
  return {
    name,
    read: `coalesce(${read}, '')`,
    type,
    table: 'entry_consent',
    whenMissing: () => '',
    problem: (value) => (value === '' ? undefined : problem(value)),
  }
}

/** The columns; a time is checked by the entry columns' own rule, which entry-columns.ts hands in. */
export function consentColumns(
  timeProblem: (column: string, value: string) => string | undefined,
): ConsentColumn[] {
  return [
    column('consent_at', isoUtc('entry_consent.at'), 'timestamptz', (value) =>
      timeProblem('consent_at', value),
    ),
    column('consent_door', 'entry_consent.door', 'text', (value) =>
      isConsentDoor(value)
        ? undefined
        : `consent_door ${quoted(value)} is not one of ${CONSENT_DOORS.join(', ')}`,
    ),
    column('consent_words', 'entry_consent.words', 'text', (value) =>
      VERSION.test(value) ? undefined : `consent_words ${quoted(value)} is not a version (16 hex digits)`,
    ),
    column(
      'consent_agent',
      `case when entry_consent.agent_name is not null then json_strip_nulls(json_build_object('name', entry_consent.agent_name, 'version', entry_consent.agent_version))::text end`,
      'text',
      agentProblem,
    ),
    column('confirmed_from', 'entry_consent.confirmed_from::text', 'cidr', (value) =>
      NETWORK.test(value)
        ? undefined
        : `confirmed_from ${quoted(value)} is not an IPv4 /24 or IPv6 /48 network`,
    ),
  ]
}

/**
 * The consent records of the entries an import added, from `from` (a staged row `staged` and its
 * entry `added`): as the file has them, or, for a line without a door, door `import`, the import's
 * time and `fileWords` (the version naming the file).
 */
export function consentSql(from: string, fileWords: string | undefined): string {
  const words = fileWords ? escapeLiteral(fileWords) : 'null'
  return `
  insert into private.entry_consent (waitlist_id, at, door, words, agent_name, agent_version, confirmed_from)
  select added.id,
         case when staged.consent_door is null then now() else coalesce(staged.consent_at, staged.created_at) end,
         coalesce(staged.consent_door, 'import'),
         case when staged.consent_door is null then ${words} else staged.consent_words end,
         staged.consent_agent::jsonb ->> 'name', staged.consent_agent::jsonb ->> 'version',
         staged.confirmed_from
    from ${from}`
}
