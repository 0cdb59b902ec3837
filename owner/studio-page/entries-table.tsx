import type { PageEntry, SortColumn } from '../../server/admin/entries'
import type { EntryPage, PageStart } from './api'
import type { Sort } from './filters'
import { useMay } from './role'
import { FOCUS } from './styles'
import { TABLE_COLUMNS, type TableColumn } from './table-columns'

/** Moves to the page that starts there, whose number is `number`. */
type OnPage = (start: PageStart, number: number) => void

/** The rows ticked for "Invite selected" and "Tag selected", and how a tick changes them. */
export interface Selection {
  has(email: string): boolean
  toggle(email: string, on: boolean): void
}

/**
 * One page of the list as a table of people, side by side: each row with its box for the
 * selection, its address (which opens the entry's panel, where Remove is) and a cell per column
 * shown; each heading sorts by its column, and says which way (`aria-sort`). On a narrow screen the
 * table scrolls sideways in its own region.
 */
export function EntriesTable(props: {
  page: EntryPage | undefined
  /** The page's number, counted by the owner's moves. */
  number: number
  /** A search or a filter narrows the list: its count is of the matches, and none says so. */
  searching: boolean
  /** What an empty page says while searching. */
  noMatch: string
  sort: Sort
  onSort(sort: Sort): void
  hidden: readonly SortColumn[]
  onPage: OnPage
  onOpen(email: string): void
  selection: Selection
}) {
  const { page } = props
  if (!page) return <p className="mt-4 text-soft">Loading…</p>
  const columns = TABLE_COLUMNS.filter((column) => !props.hidden.includes(column.id))
  return (
    <>
      {page.entries.length === 0 ? (
        <p className="mt-4 text-soft">{props.searching ? props.noMatch : 'Nobody is on the waitlist yet.'}</p>
      ) : (
        // A region of its own that a keyboard can reach, so it can be scrolled sideways too.
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1)
        <section aria-label="The table of signups" tabIndex={0} className={`mt-4 overflow-x-auto ${FOCUS}`}>
          <table className="w-full border-collapse text-left text-sm">
            <caption className="caption-bottom pt-2 text-left text-xs text-soft">
              Dates in UTC; hover over one for its time. A long answer is cut: hover over it, or open the
              entry, for the whole.
            </caption>
            <thead>
              <tr className="border-b border-line">
                <th scope="col" className="py-2 pr-2 font-semibold">
                  <span className="sr-only">Selected</span>
                </th>
                {columns.map((column) => (
                  <SortHeading key={column.id} column={column} sort={props.sort} onSort={props.onSort} />
                ))}
              </tr>
            </thead>
            <tbody>
              {page.entries.map((entry) => (
                <EntryRow
                  key={entry.email}
                  entry={entry}
                  columns={columns}
                  selected={props.selection.has(entry.email)}
                  onSelect={(on) => props.selection.toggle(entry.email, on)}
                  onOpen={() => props.onOpen(entry.email)}
                />
              ))}
            </tbody>
          </table>
        </section>
      )}
      <Paging page={page} number={props.number} searching={props.searching} onPage={props.onPage} />
    </>
  )
}

/** A column's heading: a button that sorts by it, A to Z first, then the other way. */
function SortHeading({
  column,
  sort,
  onSort,
}: {
  column: TableColumn
  sort: Sort
  onSort(sort: Sort): void
}) {
  const current = sort.column === column.id
  const way = current ? (sort.descending ? 'descending' : 'ascending') : undefined
  const next = { column: column.id, descending: current && !sort.descending }
  return (
    <th scope="col" aria-sort={way ?? 'none'} className="py-2 pr-3 font-semibold whitespace-nowrap">
      <button
        type="button"
        onClick={() => onSort(next)}
        title={`${column.label}: sort ${column.orders[next.descending ? 1 : 0]}`}
        className={`inline-flex items-center gap-1 underline-offset-2 hover:underline ${FOCUS}`}
      >
        {column.heading}
        <span aria-hidden="true" className={current ? 'text-accent' : 'text-line'}>
          {current && sort.descending ? '▼' : '▲'}
        </span>
      </button>
    </th>
  )
}

function EntryRow(props: {
  entry: PageEntry
  columns: readonly TableColumn[]
  selected: boolean
  onSelect(on: boolean): void
  onOpen(): void
}) {
  const { entry } = props
  // Ticked rows are for inviting and tagging, which a viewer may not do.
  const maySelect = useMay('member')
  return (
    <tr className="border-b border-line align-top">
      <td className="py-2 pr-2">
        {maySelect && (
          <input
            type="checkbox"
            aria-label={`Select ${entry.email}`}
            checked={props.selected}
            onChange={(event) => props.onSelect(event.target.checked)}
            className={`max-sm:size-5 ${FOCUS}`}
          />
        )}
      </td>
      {props.columns.map((column) =>
        column.id === 'email' ? (
          <td key={column.id} className="py-2 pr-3">
            {/* The address opens the entry's panel: its answers, marks and history, and Remove. */}
            <button
              type="button"
              onClick={props.onOpen}
              className={`text-left whitespace-nowrap underline decoration-line underline-offset-2 hover:decoration-accent ${FOCUS}`}
            >
              {entry.email}
            </button>
          </td>
        ) : (
          <Cell key={column.id} column={column} entry={entry} />
        ),
      )}
    </tr>
  )
}

/** A cell: a long text cut to its start, the whole of it on hover; the tags as words. */
function Cell({ column, entry }: { column: TableColumn; entry: PageEntry }) {
  const text = column.text(entry)
  if (column.id === 'tags')
    return (
      <td className="py-2 pr-3">
        <span className="flex gap-1">
          {text
            .split(' ')
            .filter(Boolean)
            .map((tag) => (
              <span key={tag} className="rounded border border-line px-1.5 text-xs whitespace-nowrap">
                {tag}
              </span>
            ))}
        </span>
      </td>
    )
  return (
    <td title={column.title?.(entry) || undefined} className="py-2 pr-3 whitespace-nowrap tabular-nums">
      {column.long ? (
        <span title={text} className="block max-w-40 truncate">
          {text}
        </span>
      ) : (
        text
      )}
    </td>
  )
}

const count = (value: number) => value.toLocaleString('en-US')

/**
 * The page's number: the first page has none before it and the last none after it, whatever the
 * count of moves says (entries come and go meanwhile).
 */
function shownNumber(page: EntryPage, number: number, pages: number): number {
  if (page.previous === null) return 1
  if (page.next === null && !page.capped) return pages
  return page.capped ? Math.max(number, 2) : Math.min(Math.max(number, 2), pages)
}

function Paging(props: { page: EntryPage; number: number; searching: boolean; onPage: OnPage }) {
  const { page, onPage } = props
  const pages = Math.max(1, Math.ceil(page.matching / page.pageSize))
  const number = shownNumber(page, props.number, pages)
  const matching = page.capped
    ? `more than ${count(page.matching)} matching`
    : `${count(page.matching)} ${props.searching ? 'matching' : 'in all'}`
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center justify-between gap-2 text-sm">
      <button
        type="button"
        disabled={page.previous === null}
        onClick={() => page.previous !== null && onPage({ before: page.previous }, number - 1)}
        className={`rounded border border-line px-3 py-1 disabled:opacity-50 ${FOCUS}`}
      >
        Previous
      </button>
      <span>
        Page {count(number)}
        {page.capped ? '' : ` of ${count(pages)}`} · {matching}
      </span>
      <button
        type="button"
        disabled={page.next === null}
        onClick={() => page.next !== null && onPage({ after: page.next }, number + 1)}
        className={`rounded border border-line px-3 py-1 disabled:opacity-50 ${FOCUS}`}
      >
        Next
      </button>
    </nav>
  )
}
