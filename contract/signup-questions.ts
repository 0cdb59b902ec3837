import { cleanText } from './clean-text'

/**
 * The shape of the lab's optional questions (contract/site-config.ts, signupQuestions), and the one
 * check of the answers every door makes: the confirmation page, the MCP tool, the WebMCP tool and
 * `import`. Plain code, no library: the page ships it.
 */
export type SignupQuestion =
  | { id: string; label: string; kind: 'choice'; choices: readonly string[] }
  | { id: string; label: string; kind: 'text'; maxLength: number }

/** Answers by question id; a question not answered is absent, never empty. */
export type Answers = Record<string, string>

/** The answers checked, or what is wrong with them in words an agent or a person can act on. */
export type CheckedAnswers = { answers: Answers } | { problem: string }

/**
 * Checks answers against the questions: each key a question's id, each value a string, cleaned as
 * all text from strangers is (clean-text.ts: format characters dropped, a control character or half
 * a character refused); a choice one of its choices, exactly; a text trimmed, at most its length.
 * An empty or blank value is no answer. Keys that are not questions are the caller's to refuse or
 * ignore (`others`).
 */
export function checkAnswers(
  questions: readonly SignupQuestion[],
  given: Readonly<Record<string, unknown>>,
): CheckedAnswers {
  const answers: Answers = {}
  for (const question of questions) {
    const value = given[question.id]
    if (value === undefined || value === null) continue
    if (typeof value !== 'string') return { problem: `"${question.id}" must be a string` }
    const cleaned = cleanText(`"${question.id}"`, value)
    if ('problem' in cleaned) return cleaned
    const text = cleaned.text.trim()
    if (text === '') continue
    const problem = problemOf(question, text)
    if (problem) return { problem }
    answers[question.id] = text
  }
  return { answers }
}

function problemOf(question: SignupQuestion, text: string): string | undefined {
  if (question.kind === 'choice') {
    if (question.choices.includes(text)) return undefined
    return `"${question.id}" must be one of ${question.choices.map((choice) => JSON.stringify(choice)).join(', ')}`
  }
  if (text.length > question.maxLength)
    return `"${question.id}" must be at most ${question.maxLength} characters`
  return undefined
}

/**
 * A question's JSON Schema, as the agents' tools publish it. The label alone ("Your role") would
 * read as a question to the agent: the description says whose answer it is, and that it may be left out.
 */
export function answerSchema(question: SignupQuestion): Record<string, unknown> {
  const asked = `the lab's question "${question.label}"`
  const description = `Optional: the person's own answer to ${asked}, if they gave one.`
  if (question.kind === 'choice') return { type: 'string', enum: [...question.choices], description }
  return { type: 'string', maxLength: question.maxLength, description }
}
