import { escapeLiteral } from 'pg'
import { ENTRY_STATUSES, type EntryStatus, isEntryStatus } from '../../../contract/entry-statuses'
import type { SignupQuestion } from '../../../contract/signup-questions'
import { signupQuestions } from '../../../contract/site-config'
import { cleanSource } from '../../analytics/source-of'
import { agentCondition, readAgents, verifiedAgentCondition } from './agent-filter'
import { readTag } from './entry-marks'

/**
 * Which entries the owner means: one filter for `list`, `count`, `export`, `invite --next` and the
 * studio's list, turned into SQL here alone. Every field given narrows the entries (all must
 * match); a field with several values takes any of them, and answers to one question likewise. A
 * new filter is one field of EntryFilter, one check in `readFilter` and one clause in
 * `filterConditions`, and every command and the studio have it.
 */
export interface EntryFilter {
  /** Entries with any of these statuses. */
  statuses?: readonly EntryStatus[]
  /** Entries that signed up at or after this time (anything PostgreSQL reads as a timestamp). */
  since?: string
  /** Entries whose signup came from any of these sources (the sources report's names). */
  sources?: readonly string[]
  /** Entries at any of these domains or their subdomains (the part after @, any letter case): `edu` is every .edu. */
  domains?: readonly string[]
  /** Answers that must match: a choice exactly, a text as a substring in any letter case. */
  answers?: readonly AnswerMatch[]
  /** Entries carrying every one of these tags (entry-marks.ts). */
  tags?: readonly string[]
  /** Entries carrying none of these tags. */
  notTags?: readonly string[]
  /** Entries whose latest invitation was in any of these batches (the funnel's batch numbers). */
  batches?: readonly number[]
  /** Entries an agent made: a declared name, or a verified agent's display name or origin (lower case). */
  agents?: readonly string[]
  /** Entries a verified agent made (a Web Bot Auth signature that held; agent-filter.ts). */
  agentVerified?: true
}

/** One `--answer ID=VALUE`. */
export interface AnswerMatch {
  question: SignupQuestion
  value: string
}

/** A filter with nothing in it: every entry. */
export const isEmptyFilter = (filter: EntryFilter) =>
  Object.values(filter).every((value) => value === undefined)

/** What the owner typed: the CLI's flags, the studio's query. */
export interface GivenFilter {
  statuses?: readonly string[]
  since?: string
  sources?: readonly string[]
  domains?: readonly string[]
  /** ID=VALUE each. */
  answers?: readonly string[]
  tags?: readonly string[]
  notTags?: readonly string[]
  batches?: readonly string[]
  agents?: readonly string[]
  agentVerified?: boolean
}

/**
 * The filter the owner asked for, or what is wrong with it in the words of the flags. `since` is
 * checked where it is read, as a date.
 */
export function readFilter(given: GivenFilter): { filter: EntryFilter } | { problem: string } {
  const { statuses, since, sources, domains } = given
  const unknown = statuses?.find((status) => !isEntryStatus(status))
  if (unknown !== undefined)
    return {
      problem: `--status needs one of ${ENTRY_STATUSES.join(', ')}, not ${JSON.stringify(unknown.slice(0, 40))}`,
    }
  const answers: AnswerMatch[] = []
  for (const text of given.answers ?? []) {
    const read = readAnswer(text)
    if ('problem' in read) return read
    answers.push(read)
  }
  const badDomain = domains?.find((domain) => readDomain(domain) === undefined)
  if (badDomain !== undefined)
    return {
      problem: `--domain needs a domain or its end, such as stanford.edu or edu, not ${JSON.stringify(badDomain.slice(0, 40))}`,
    }
  const tags = readTags('--tag', given.tags)
  const notTags = readTags('--no-tag', given.notTags)
  if ('problem' in tags) return tags
  if ('problem' in notTags) return notTags
  const agents = readAgents(given.agents)
  if ('problem' in agents) return agents
  const badBatch = given.batches?.find((batch) => !/^[1-9]\d{0,15}$/.test(batch.trim()))
  if (badBatch !== undefined)
    return {
      problem: `--batch needs a batch number, as funnel --by batch shows it, not ${JSON.stringify(badBatch.slice(0, 20))}`,
    }
  const filter: EntryFilter = {
    statuses: statuses && [...new Set(statuses.filter(isEntryStatus))],
    since,
    // Stored in one form (migration 20261207530000): `--source Newsletter` is "newsletter".
    sources: sources && sources.length > 0 ? [...new Set(sources.map(cleanSource))] : undefined,
    domains:
      domains && domains.length > 0
        ? [...new Set(domains.map((domain) => readDomain(domain) ?? ''))]
        : undefined,
    answers: answers.length > 0 ? answers : undefined,
    tags: tags.tags,
    notTags: notTags.tags,
    batches:
      given.batches && given.batches.length > 0
        ? [...new Set(given.batches.map((batch) => Number(batch.trim())))]
        : undefined,
    agents: agents.agents,
    agentVerified: given.agentVerified ? true : undefined,
  }
  return { filter }
}

/** A domain as the filter matches it: lower case, without a leading `@` or `.`; undefined if it is not one. */
function readDomain(given: string): string | undefined {
  const domain = given.trim().replace(/^[@.]/, '').toLowerCase()
  return /^[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*$/.test(domain) && domain.length <= 253 ? domain : undefined
}

/** The tags of a repeated flag, each as stored; none given, undefined. */
function readTags(
  flag: string,
  given: readonly string[] | undefined,
): { tags: string[] | undefined } | { problem: string } {
  if (!given || given.length === 0) return { tags: undefined }
  const tags: string[] = []
  for (const text of given) {
    const read = readTag(text)
    if ('problem' in read) return { problem: `${flag}: ${read.problem}` }
    tags.push(read.tag)
  }
  return { tags: [...new Set(tags)] }
}

/** `ID=VALUE`, for one of the lab's questions; a choice must be one of its choices. */
function readAnswer(text: string): AnswerMatch | { problem: string } {
  const at = text.indexOf('=')
  const id = text.slice(0, Math.max(at, 0)).trim()
  const value = text.slice(at + 1).trim()
  const question = signupQuestions.find((candidate) => candidate.id === id)
  const ids = signupQuestions.map((candidate) => candidate.id).join(', ')
  if (at < 0 || !question)
    return {
      problem: `--answer needs ID=VALUE with ID one of ${ids}, not ${JSON.stringify(text.slice(0, 60))}`,
    }
  if (value === '') return { problem: `--answer ${id}= needs a value` }
  if (question.kind === 'choice' && !question.choices.includes(value))
    return {
      problem: `--answer ${id} needs one of ${question.choices.map((choice) => JSON.stringify(choice)).join(', ')}`,
    }
  return { question, value }
}

/**
 * How a value reaches the SQL: as a parameter of the query ($n), or, for COPY, which takes none, as
 * a quoted literal. Either way the value is data, never SQL text.
 */
export type Bind = (
  value: string | readonly string[],
  type: 'text[]' | 'timestamptz' | 'text' | 'jsonb' | 'bigint[]',
) => string

/** Each value a parameter, appended to `params`. */
export function bindParameters(params: unknown[]): Bind {
  return (value, type) => {
    params.push(value)
    return `$${params.length}::${type}`
  }
}

/** Each value a quoted literal (an array as PostgreSQL's array text, each element quoted). */
export const bindLiterals: Bind = (value, type) => {
  const text =
    typeof value === 'string'
      ? value
      : `{${value.map((item) => `"${item.replace(/["\\]/g, '\\$&')}"`).join(',')}}`
  return `${escapeLiteral(text)}::${type}`
}

/** The names the conditions use: ENTRY_SOURCE's (entry-columns.ts) unless told otherwise. */
export interface FilterTables {
  /** public.waitlist */
  list: string
  /** private.entry_status, left-joined: no row means waiting. */
  status: string
}

const ENTRY_SOURCE_TABLES: FilterTables = { list: 'waitlist', status: 'entry_status' }

/**
 * A status condition the planner can serve from the status index (entry_status_by_status) when
 * `waiting` is not asked for: a condition on the joined row's own status, which an entry without
 * one fails. `waiting` is mostly the entries without a row (ADR 034): those are most of a list,
 * found as the list is walked in its order. Written as `is null or`, not coalesce(): the planner
 * takes a function's result for half a percent of the rows, where waiting is most of them, and at a
 * million entries it looked up the answers of every waiting one (0.7-0.9 s, against 0.25-0.3 s).
 */
function statusCondition(statuses: readonly EntryStatus[], bind: Bind, on: FilterTables): string {
  const listed = `${on.status}.status = any(${bind(statuses, 'text[]')})`
  return statuses.includes('waiting') ? `(${on.status}.status is null or ${listed})` : listed
}

/** `%value%` for ILIKE, the value's own wildcards matching themselves. */
const containing = (value: string) => `%${value.replace(/[\\%_]/g, (char) => `\\${char}`)}%`

/**
 * One question's answers (any of them): a choice by containment, which the GIN index on the
 * answers serves; a text as a substring.
 */
function answerTest(matches: readonly AnswerMatch[], bind: Bind): string {
  const tests = matches.map(({ question, value }) =>
    question.kind === 'choice'
      ? `a.answers @> ${bind(JSON.stringify({ [question.id]: value }), 'jsonb')}`
      : `a.answers ->> ${bind(question.id, 'text')} ilike ${bind(containing(value), 'text')}`,
  )
  return `(${tests.join(' or ')})`
}

/**
 * The answers asked for, grouped by question: every question must match, any of its values. The
 * answers live in private.entry_answers, one row per entry that answered anything (an entry without
 * one matches no answer), a fifth of a list or so: the entries that match are found there first, all
 * at once, and then looked up by key, whatever the planner estimates. As EXISTS (or a join) it read
 * the whole list to meet them, at a million entries a little slower, and its plan hung on estimates.
 */
function answerCondition(answers: readonly AnswerMatch[], bind: Bind, on: FilterTables): string {
  const byQuestion = new Map<string, AnswerMatch[]>()
  for (const match of answers)
    byQuestion.set(match.question.id, [...(byQuestion.get(match.question.id) ?? []), match])
  const tests = [...byQuestion.values()].map((matches) => answerTest(matches, bind))
  return `${on.list}.id = any(array(select a.waitlist_id from private.entry_answers a where ${tests.join(' and ')}))`
}

/**
 * The domain and every subdomain: `stanford.edu` is also `cs.stanford.edu`, `edu` every `.edu`, and
 * neither `notedu.com`. Equality can use the domain's index (waitlist_domain_prefix); the subdomains
 * are a suffix, which no btree serves: a scan, that a narrower filter beside it saves.
 */
function domainCondition(domains: readonly string[], bind: Bind, on: FilterTables): string {
  const domain = `lower(split_part(${on.list}.email::text, '@', 2))`
  // readDomain let no LIKE wildcard in.
  const subdomains = domains.map((name) => `%.${name}`)
  return `(${domain} = any(${bind(domains, 'text[]')}) or ${domain} like any(${bind(subdomains, 'text[]')}))`
}

/**
 * Tags: the entries carrying all of `tags` found first among the marked ones (on the tags' GIN
 * index, or a scan of the marks where most carry the tag), then looked up by key, as the answers
 * are; those carrying any of `notTags` left out by their key.
 */
function tagConditions(filter: EntryFilter, bind: Bind, on: FilterTables): string[] {
  const conditions: string[] = []
  if (filter.tags !== undefined)
    conditions.push(
      `${on.list}.id = any(array(select m.waitlist_id from private.entry_marks m where m.tags @> ${bind(filter.tags, 'text[]')}))`,
    )
  if (filter.notTags !== undefined)
    conditions.push(
      `not exists (select 1 from private.entry_marks m where m.waitlist_id = ${on.list}.id and m.tags && ${bind(filter.notTags, 'text[]')})`,
    )
  return conditions
}

/**
 * An entry's batch: its latest invitation's (private.mail_outbox.batch_id, one per `invite` run),
 * null for an entry never invited. The studio's column and its sort read it an entry at a time;
 * the filter below asks the same from the batches' side.
 */
export const LATEST_BATCH = (list: string) =>
  `select max(o.batch_id) from private.mail_outbox o where o.waitlist_id = ${list}.id and o.kind = 'invitation'`

/**
 * The entries of the batches asked for, found on the batches' index, less those invited again in a
 * later one: LATEST_BATCH's meaning, without reading every entry's invitations.
 */
function batchCondition(batches: readonly number[], bind: Bind, on: FilterTables): string {
  return `${on.list}.id = any(array(
    select o.waitlist_id from private.mail_outbox o
     where o.kind = 'invitation' and o.batch_id = any(${bind(batches.map(String), 'bigint[]')})
       and not exists (select 1 from private.mail_outbox later where later.waitlist_id = o.waitlist_id
                          and later.kind = 'invitation' and later.batch_id > o.batch_id)))`
}

/** The filter's conditions on the list beside its statuses; none for an empty filter. */
export function filterConditions(
  filter: EntryFilter,
  bind: Bind,
  on: FilterTables = ENTRY_SOURCE_TABLES,
): string[] {
  const conditions: string[] = []
  if (filter.statuses !== undefined) conditions.push(statusCondition(filter.statuses, bind, on))
  if (filter.since !== undefined)
    conditions.push(`${on.list}.created_at >= ${bind(filter.since, 'timestamptz')}`)
  if (filter.sources !== undefined)
    conditions.push(`${on.list}.source = any(${bind(filter.sources, 'text[]')})`)
  if (filter.domains !== undefined) conditions.push(domainCondition(filter.domains, bind, on))
  if (filter.answers !== undefined) conditions.push(answerCondition(filter.answers, bind, on))
  conditions.push(...tagConditions(filter, bind, on))
  if (filter.batches !== undefined) conditions.push(batchCondition(filter.batches, bind, on))
  if (filter.agents !== undefined) conditions.push(agentCondition(filter.agents, bind, on.list))
  if (filter.agentVerified) conditions.push(verifiedAgentCondition(on.list))
  return conditions
}

/**
 * The filter in the CLI's words (`--status waiting --answer role=Research --tag shortlist`): how a
 * batch chosen by it is recorded, whichever door chose it.
 */
export function filterWords(filter: EntryFilter): string {
  const typed = (value: string) => (/^[\w.@=:+-]+$/.test(value) ? value : JSON.stringify(value))
  const flags: [string, readonly string[] | undefined][] = [
    ['status', filter.statuses],
    ['source', filter.sources],
    ['answer', filter.answers?.map(({ question, value }) => `${question.id}=${value}`)],
    ['domain', filter.domains],
    ['tag', filter.tags],
    ['no-tag', filter.notTags],
    ['batch', filter.batches?.map(String)],
    ['since', filter.since === undefined ? undefined : [filter.since]],
    ['agent', filter.agents],
  ]
  return [
    ...flags.flatMap(([flag, values]) => (values ?? []).map((value) => `--${flag} ${typed(value)}`)),
    ...(filter.agentVerified ? ['--agent-verified'] : []),
  ].join(' ')
}

/**
 * Whether the filter names its entries by the team's own sets, a tag or a batch (`id = any(array(…))`).
 * Such a test is checked on any index that holds the id, the created_at index among them, without
 * reading the rows it rejects: a walk of that index yields the matches in the list's order.
 */
export const namesTeamSets = (filter: EntryFilter) =>
  filter.tags !== undefined || filter.batches !== undefined

/** `where …` for these conditions, or nothing. */
export const whereOf = (conditions: readonly string[]) =>
  conditions.length > 0 ? `where ${conditions.join(' and ')}` : ''
