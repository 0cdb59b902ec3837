import { useEffect, useId, useState } from 'react'
import type { SignupQuestion } from '../../contract/signup-questions'
import { signupQuestions } from '../../contract/site-config'
import { FilterBoxes } from './filter-boxes'
import { answersTo, type Filters, withAnswers } from './filters'
import { FOCUS } from './styles'

// The boxes first, then the "contains" fields side by side.
const choices = signupQuestions.filter((question) => question.kind === 'choice')
const texts = signupQuestions.filter((question) => question.kind === 'text')

/**
 * The source and answer filters beside the status boxes: a box per source the list holds and per
 * choice of each choice question, a "contains" field per text question (the CLI's `--source`,
 * `--answer ID=VALUE`). Ticks within one group match any of them; the groups must all match.
 */
export function AnswerFilters(props: {
  filters: Filters
  /** The sources present on the list (the summary's), alphabetical. */
  sources: readonly string[] | undefined
  moreSources: boolean
  onChange(filters: Filters): void
}) {
  const { filters, onChange } = props
  // A source in the address that no entry has (any more) stays shown, so it can be unticked.
  const offered = [...new Set([...(props.sources ?? []), ...filters.sources])]
  return (
    <>
      <FilterBoxes
        legend="Source (none ticked: any)"
        options={offered}
        selected={filters.sources}
        onChange={(sources) => onChange({ ...filters, sources })}
        note={
          props.moreSources
            ? `Only the first ${props.sources?.length} sources, in alphabetical order.`
            : undefined
        }
        empty={props.sources ? 'No entry has a source yet.' : 'Loading…'}
      />
      {choices.map((question) => (
        <QuestionFilter key={question.id} question={question} filters={filters} onChange={onChange} />
      ))}
      <div className="grid gap-x-4 sm:grid-cols-2">
        {texts.map((question) => (
          <QuestionFilter key={question.id} question={question} filters={filters} onChange={onChange} />
        ))}
      </div>
    </>
  )
}

function QuestionFilter(props: {
  question: SignupQuestion
  filters: Filters
  onChange(filters: Filters): void
}) {
  const { question, filters, onChange } = props
  const given = answersTo(filters, question.id)
  const change = (values: readonly string[]) => onChange(withAnswers(filters, question.id, values))
  if (question.kind === 'choice')
    return (
      <FilterBoxes
        legend={`${question.label} (none ticked: any answer)`}
        options={question.choices}
        selected={given}
        onChange={change}
      />
    )
  return <ContainsBox label={`${question.label}: contains`} value={given[0] ?? ''} onChange={change} />
}

/** A text question's filter: the list follows it a moment after typing stops, as the search does. */
function ContainsBox(props: { label: string; value: string; onChange(values: string[]): void }) {
  const id = useId()
  const [text, setText] = useState(props.value)
  const { value, onChange } = props
  useEffect(() => {
    const next = text.trim()
    if (next === value) return
    const timer = setTimeout(() => onChange(next === '' ? [] : [next]), 300)
    return () => clearTimeout(timer)
  }, [text, value, onChange])
  return (
    <div className="mt-3">
      <label htmlFor={id} className="block text-sm font-medium">
        {props.label}
      </label>
      <input
        id={id}
        type="search"
        value={text}
        onChange={(event) => setText(event.target.value)}
        className={`mt-1 w-full rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
      />
    </div>
  )
}
