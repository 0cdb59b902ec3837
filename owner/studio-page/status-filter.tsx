import type { StatusCounts } from '../../server/waitlist/admin/status-counts'
import { ENTRY_STATUSES, type EntryStatus } from '../../server/waitlist/entry-status'

const FOCUS = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent'

/**
 * How many entries have each status, each a box that narrows the list to it: several ticked show
 * any of them, none ticked shows everyone (the CLI's `--status S`…, entry-filter.ts).
 */
export function StatusFilter(props: {
  counts: StatusCounts | undefined
  selected: readonly EntryStatus[]
  onChange(selected: EntryStatus[]): void
}) {
  const { counts, selected, onChange } = props
  const toggle = (status: EntryStatus, on: boolean) =>
    onChange(ENTRY_STATUSES.filter((each) => (each === status ? on : selected.includes(each))))
  return (
    <fieldset className="mt-3">
      <legend className="text-sm font-medium">Status (none ticked: everyone)</legend>
      <div className="mt-1 flex flex-wrap gap-2">
        {ENTRY_STATUSES.map((status) => (
          <label
            key={status}
            className="flex items-center gap-2 rounded border border-line px-2 py-1 text-sm has-[:checked]:border-accent"
          >
            <input
              type="checkbox"
              checked={selected.includes(status)}
              onChange={(event) => toggle(status, event.target.checked)}
              className={FOCUS}
            />
            {status}{' '}
            <span className="tabular-nums text-soft">
              ({counts?.[status].toLocaleString('en-US') ?? '…'})
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  )
}
