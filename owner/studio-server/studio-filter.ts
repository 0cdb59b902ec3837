import type { Context } from 'hono'
import type { SignupQuestion } from '../../contract/signup-questions'
import { signupQuestions } from '../../contract/site-config'
import { type EntryFilter, readFilter } from '../../server/admin/entries'

/** More values than any page sends: a query past these is not the studio's own. */
const MAX_SOURCES = 50
const MAX_ANSWERS = 20
const MAX_SOURCE = 100
const MAX_OTHERS = 20
const MAX_OTHER = 253
/** The longest answer a question takes: no entry could match a longer one. */
const longest = (question: SignupQuestion) =>
  question.kind === 'text' ? question.maxLength : Math.max(...question.choices.map((choice) => choice.length))
/** `ID=VALUE` at its longest. */
const MAX_ANSWER = Math.max(...signupQuestions.map((question) => question.id.length + 1 + longest(question)))

/** The CLI's flag words, as the studio's query names them. */
const inQueryWords = (problem: string) =>
  problem.replace(/--(status|source|answer|domain|tag|no-tag|batch|agent)\b/g, '$1')

/**
 * The filter in the studio's query, as `list` reads its flags (entry-filter.ts): `status`, `source`,
 * `answer=ID=VALUE`, `domain` and `batch`, each repeatable (any of them), `tag` (all of them) and
 * `no-tag`, `agent` (any) and `agent-verified=true`; different ones must all match. Bounded, so what a request names never decides how much
 * the server holds.
 */
export function studioFilter(c: Context): { filter: EntryFilter } | { problem: string } {
  const statuses = c.req.queries('status')
  const sources = c.req.queries('source')
  const answers = c.req.queries('answer')
  if ((sources?.length ?? 0) > MAX_SOURCES) return { problem: `at most ${MAX_SOURCES} sources` }
  if ((answers?.length ?? 0) > MAX_ANSWERS) return { problem: `at most ${MAX_ANSWERS} answers` }
  if (sources?.some((source) => source.trim() === '' || source.length > MAX_SOURCE))
    return { problem: `source needs a name of 1 to ${MAX_SOURCE} characters` }
  if (answers?.some((answer) => answer.length > MAX_ANSWER))
    return { problem: `answer at most ${MAX_ANSWER} characters` }
  const others = {
    domain: c.req.queries('domain'),
    tag: c.req.queries('tag'),
    'no-tag': c.req.queries('no-tag'),
    batch: c.req.queries('batch'),
    agent: c.req.queries('agent'),
  }
  for (const [name, values] of Object.entries(others))
    if ((values?.length ?? 0) > MAX_OTHERS || values?.some((value) => value.length > MAX_OTHER))
      return { problem: `${name}: at most ${MAX_OTHERS} values of ${MAX_OTHER} characters` }
  const read = readFilter({
    statuses,
    sources,
    answers,
    domains: others.domain,
    tags: others.tag,
    notTags: others['no-tag'],
    batches: others.batch,
    agents: others.agent,
    agentVerified: c.req.query('agent-verified') === 'true',
  })
  return 'problem' in read ? { problem: inQueryWords(read.problem) } : read
}
