import { storedAgentProblem } from '../../agents/agent-record'
import { isoUtc } from '../../db/iso-utc'
import { CONSENT_DOORS, isConsentDoor } from '../consent/door-words'

/**
 * The consent record's columns of `export` and `import` (ADR 096), after the answers: when, the
 * door, the words' version, the agent (JSON: as declared, and what its signature proved, ADR 121),
 * and the network the confirmation came from. They are public.waitlist's own columns, so `import` writes them with the
 * entry; a line without a door gets door `import` and the version of a line naming its file
 * (owner/cli/import-consent.ts).
 */

const VERSION = /^[0-9a-f]{16}$/
// The consent record's cut (waitlist_confirmed_from_cut): IPv4 /24, IPv6 /48, as PostgreSQL writes it.
const NETWORK = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.0\/24|[0-9a-f:]+\/48)$/

/**
 * An agent cell: the record as the table keeps it ({"name", "version"}, and what a signature check
 * found, server/agents/agent-record.ts). Problems are words that follow the value, as entry-columns.ts's.
 */
function agentProblem(value: string): string | undefined {
  try {
    return storedAgentProblem(JSON.parse(value))
  } catch {
    return 'not JSON such as {"name": "claude-code", "version": "1.0"}'
  }
}

/** A consent column of public.waitlist, in entry-columns.ts's shape (EntryColumn): empty is none. */
export interface ConsentColumn {
  name: string
  read: string
  type: string
  table: 'waitlist'
  whenMissing: () => string
  problem(value: string): string | undefined
  stage?: (value: string) => string
}

/** How the entry columns read a time (a date, a time with or without its zone, Unix seconds). */
export interface TimeRule {
  problem(value: string): string | undefined
  stage(value: string): string
}

function column(name: string, read: string, type: string, problem: (value: string) => string | undefined) {
  return {
    name,
    read: `coalesce(${read}, '')`,
    type,
    table: 'waitlist',
    whenMissing: () => '',
    problem: (value) => (value === '' ? undefined : problem(value)),
  } satisfies ConsentColumn
}

/** The columns; a time is read by the entry columns' own rule, which entry-columns.ts hands in. */
export function consentColumns(time: TimeRule): ConsentColumn[] {
  return [
    {
      ...column('consent_at', isoUtc('waitlist.consent_at'), 'timestamptz', time.problem),
      stage: time.stage,
    },
    column('consent_door', 'waitlist.consent_door', 'text', (value) =>
      isConsentDoor(value) ? undefined : `not one of ${CONSENT_DOORS.join(', ')}`,
    ),
    column('consent_words', 'waitlist.consent_words', 'text', (value) =>
      VERSION.test(value) ? undefined : 'not a version (16 hex digits)',
    ),
    column('consent_agent', 'waitlist.consent_agent::text', 'jsonb', agentProblem),
    column('confirmed_from', 'waitlist.confirmed_from::text', 'cidr', (value) =>
      NETWORK.test(value) ? undefined : 'not an IPv4 /24 or IPv6 /48 network',
    ),
  ]
}
