import type { SignupQuestion } from '../../../contract/signup-questions'
import { mailWords, nameQuestion, signupQuestions } from '../../../contract/site-config'
import { OWN_PAGE_HOME } from '../../analytics/source-of'
import { escapeHtml } from '../../mail/messages/message-html'

/** Where the confirmation page's questions are sent: with the link's own token, as the link's POST. */
export const ANSWERS_PATH = '/confirm/answers'

/**
 * What the page asks, each optional: the person's name (form field `name`), then the lab's
 * questions. The name is kept apart from the answers (server/waitlist/entry-name.ts).
 */
export const ASKED: readonly SignupQuestion[] = [nameQuestion, ...signupQuestions]

/**
 * The confirmation page's form of the lab's questions, filled in with `given`: what was typed, when
 * it is shown again, or the answers held for the entry (the person's, else an agent's proposed ones).
 */
export interface QuestionsForm {
  action: string
  given?: Readonly<Record<string, unknown>>
}

const words = mailWords.pages.answers

// A text the HTML can hold: what was given (shown again after a wrong answer), or nothing.
const textOf = (value: unknown) => (typeof value === 'string' ? value : '')

function choiceHtml(question: SignupQuestion & { kind: 'choice' }, id: string, given: string): string {
  const options = ['', ...question.choices].map((choice) => {
    const selected = choice === given ? ' selected' : ''
    const label = choice === '' ? words.noAnswer : choice
    return `<option value="${escapeHtml(choice)}"${selected}>${escapeHtml(label)}</option>`
  })
  return `<select id="${id}" name="${escapeHtml(question.id)}">${options.join('')}</select>`
}

// Up to a line's worth (a name, an organisation), a one-line field; a longer text, a box of a few lines.
const ONE_LINE = 200

function textHtml(question: SignupQuestion & { kind: 'text' }, id: string, given: string): string {
  const name = escapeHtml(question.id)
  const limit = `maxlength="${question.maxLength}"`
  if (question.maxLength <= ONE_LINE)
    return `<input id="${id}" name="${name}" type="text" ${limit} value="${escapeHtml(given)}">`
  return `<textarea id="${id}" name="${name}" rows="4" ${limit}>${escapeHtml(given)}</textarea>`
}

function fieldHtml(question: SignupQuestion, given: string): string {
  const id = `answer-${escapeHtml(question.id)}`
  const control = question.kind === 'choice' ? choiceHtml(question, id, given) : textHtml(question, id, given)
  return `<div class="field"><label for="${id}">${escapeHtml(question.label)}</label>${control}</div>`
}

/**
 * The name and the questions (contract/site-config.ts, ASKED), each optional, named by its id: a choice
 * is a select of its choices, a text a field as long as its limit allows. "Skip" leaves, sending
 * nothing, so keeping nothing: an agent's proposed answers stay proposed.
 */
export function questionsFormHtml(form: QuestionsForm): string {
  const given = form.given ?? {}
  return [
    `<form class="questions" method="post" action="${escapeHtml(form.action)}">`,
    `<p class="intro">${escapeHtml(words.intro)}</p>`,
    ...ASKED.map((question) => fieldHtml(question, textOf(given[question.id]))),
    `<div class="actions"><button type="submit">${escapeHtml(words.button)}</button>`,
    `<a class="skip" href="${OWN_PAGE_HOME}">${escapeHtml(words.skip)}</a></div>`,
    '</form>',
  ].join('\n')
}

// The longest answer a question takes, in UTF-16 units (what its limit counts).
const longest = (question: SignupQuestion) =>
  question.kind === 'choice'
    ? Math.max(...question.choices.map((choice) => choice.length))
    : question.maxLength

/**
 * The largest body the questions' form can need: each answer at its longest with every unit
 * percent-encoded (at most 9 bytes), its name, and room for a multipart form's boundaries. Derived
 * from the questions, so a longer question raises it and nothing a client sends does.
 */
export const MAX_ANSWERS_BODY = ASKED.reduce(
  (bytes, question) => bytes + question.id.length + 2 + 9 * longest(question),
  2048,
)
