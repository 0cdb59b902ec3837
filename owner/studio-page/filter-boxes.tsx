import type { ReactNode } from 'react'
import { FOCUS } from './styles'

/**
 * A group of boxes, each narrowing the list to its value: several ticked match any of them, none
 * ticked matches everyone. The status, source and choice filters are each one.
 */
export function FilterBoxes<Option extends string>(props: {
  legend: string
  options: readonly Option[]
  selected: readonly Option[]
  onChange(selected: Option[]): void
  /** Shown after an option's name, such as how many entries have it. */
  after?(option: Option): ReactNode
  note?: string
  empty?: string
}) {
  const { options, selected, onChange } = props
  const toggle = (option: Option, on: boolean) =>
    onChange(options.filter((each) => (each === option ? on : selected.includes(each))))
  return (
    <fieldset className="mt-3">
      <legend className="text-sm font-medium">{props.legend}</legend>
      {options.length === 0 && props.empty && <p className="mt-1 text-sm text-soft">{props.empty}</p>}
      <div className="mt-1 flex flex-wrap gap-2">
        {options.map((option) => (
          <label
            key={option}
            className="flex items-center gap-2 rounded border border-line px-2 py-1 text-sm [overflow-wrap:anywhere] has-[:checked]:border-accent"
          >
            <input
              type="checkbox"
              checked={selected.includes(option)}
              onChange={(event) => toggle(option, event.target.checked)}
              className={FOCUS}
            />
            {option}
            {props.after?.(option)}
          </label>
        ))}
      </div>
      {props.note && <p className="mt-1 text-xs text-soft">{props.note}</p>}
    </fieldset>
  )
}
