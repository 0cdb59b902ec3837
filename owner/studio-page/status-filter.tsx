import { ENTRY_STATUSES, type EntryStatus } from '../../contract/entry-statuses'
import type { StatusCounts } from '../../server/admin/entries'
import { FilterBoxes } from './filter-boxes'

/**
 * How many entries have each status, each a box that narrows the list to it: several ticked show
 * any of them, none ticked shows everyone (the CLI's `--status S`…, entry-filter.ts).
 */
export function StatusFilter(props: {
  counts: StatusCounts | undefined
  selected: readonly EntryStatus[]
  onChange(selected: EntryStatus[]): void
}) {
  const { counts } = props
  return (
    <FilterBoxes
      legend="Status (none ticked: everyone)"
      options={ENTRY_STATUSES}
      selected={props.selected}
      onChange={props.onChange}
      after={(status) => (
        <>
          {' '}
          <span className="tabular-nums text-soft">({counts?.[status].toLocaleString('en-US') ?? '…'})</span>
        </>
      )}
    />
  )
}
